/// Rewrites PostgreSQL placeholders `$1, $2, …` into SQLite's numbered `?1, ?2, …`.
///
/// SQLite would read `$1` as a *named* parameter and number names by first appearance, so
/// `WHERE b = $2 AND a = $1` would bind the wrong values; `?NNN` binds by number, and a number
/// used twice binds the same value. Text inside `'…'` strings, `"…"` identifiers and `--` / `/* */`
/// comments is left alone. Related SQLite documentation: "Binding Values To Prepared Statements".
enum SQLitePlaceholders {
    static func rewrite(_ sql: String) -> String {
        var out = [UInt8]()
        let bytes = Array(sql.utf8)
        out.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            let byte = bytes[i]
            switch byte {
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                // A quoted run; a doubled quote inside is an escaped quote and simply continues it.
                var end = i + 1
                while end < bytes.count, bytes[end] != byte { end += 1 }
                end = min(end + 1, bytes.count)
                out.append(contentsOf: bytes[i..<end])
                i = end
            case UInt8(ascii: "-") where i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "-"):
                var end = i
                while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
                out.append(contentsOf: bytes[i..<end])
                i = end
            case UInt8(ascii: "/") where i + 1 < bytes.count && bytes[i + 1] == UInt8(ascii: "*"):
                var end = i + 2
                while end + 1 < bytes.count, !(bytes[end] == UInt8(ascii: "*") && bytes[end + 1] == UInt8(ascii: "/")) { end += 1 }
                end = min(end + 2, bytes.count)
                out.append(contentsOf: bytes[i..<end])
                i = end
            case UInt8(ascii: "$") where i + 1 < bytes.count && isDigit(bytes[i + 1]) && (i == 0 || !isWordByte(bytes[i - 1])):
                out.append(UInt8(ascii: "?"))
                i += 1
            default:
                out.append(byte)
                i += 1
            }
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Letters, digits, `_`, `$` and non-ASCII: a `$` after one of these is part of an identifier.
    private static func isWordByte(_ byte: UInt8) -> Bool {
        isDigit(byte) || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "$") || byte >= 0x80
            || (byte | 0x20 >= UInt8(ascii: "a") && byte | 0x20 <= UInt8(ascii: "z"))
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
