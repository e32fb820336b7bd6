/// A request target (path and query, as sent) read as libmicrohttpd 0.9.75 reads the request
/// line, for a request answered in-process: the path percent-decoded (`MHD_http_unescape`: a `%`
/// not followed by two hex digits stays as it is), the query split at `&` and each argument at
/// its first `=`, with `+` as a space and then percent-decoded (`MHD_parse_arguments_`); an
/// argument without `=` has the empty value, and the last of a repeated name wins (as the server
/// collects them).
struct RequestTarget {
    /// Bytes of the target as sent.
    let bytes: Int
    /// The target as sent holds `%00`, which libmicrohttpd decodes to a NUL and hands on as C
    /// strings cut there (the server refuses it: `Responder.targetRefusal`).
    let holdsNUL: Bool
    /// The decoded path, without the query.
    let path: String
    let query: [String: String]

    init(_ target: String) {
        let raw = Array(target.utf8)
        bytes = raw.count
        holdsNUL = Self.holdsNUL(raw)
        let mark = raw.firstIndex(of: UInt8(ascii: "?"))
        path = Self.decoded(raw[..<(mark ?? raw.endIndex)], plusIsSpace: false)
        var query: [String: String] = [:]
        if let mark {
            var arguments = raw[(mark + 1)...].split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: false)
            // libmicrohttpd stops at the end of the text: a trailing `&` adds no argument.
            if arguments.last?.isEmpty == true { arguments.removeLast() }
            for argument in arguments {
                let equals = argument.firstIndex(of: UInt8(ascii: "="))
                let name = Self.decoded(argument[..<(equals ?? argument.endIndex)], plusIsSpace: true)
                query[name] = equals.map { Self.decoded(argument[($0 + 1)...], plusIsSpace: true) } ?? ""
            }
        }
        self.query = query
    }

    /// Whether the target as sent holds `%00`.
    static func holdsNUL<Bytes: RandomAccessCollection<UInt8>>(_ raw: Bytes) -> Bool where Bytes.Index == Int {
        raw.indices.dropLast(2).contains { index in
            raw[index] == UInt8(ascii: "%") && raw[index + 1] == UInt8(ascii: "0") && raw[index + 2] == UInt8(ascii: "0")
        }
    }

    /// `part` percent-decoded (and `+` made a space first when `plusIsSpace`), as text the way
    /// the server reads libmicrohttpd's C strings (invalid UTF-8 repaired).
    static func decoded(_ part: ArraySlice<UInt8>, plusIsSpace: Bool) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(part.count)
        var index = part.startIndex
        while index < part.endIndex {
            let byte = part[index]
            if byte == UInt8(ascii: "%"), part.endIndex - index >= 3, let high = hexValue(part[index + 1]), let low = hexValue(part[index + 2]) {
                out.append(high << 4 | low)
                index += 3
                continue
            }
            out.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            index += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
