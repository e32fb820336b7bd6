/// One endpoint of the Liveline API: a method and a path template such as `/v1/contexts/{key}`.
///
/// Routes are declared once, here in the shared model: the server parses request paths with
/// them and the client SDK prints paths from them, so the two can never disagree.
public struct Route: Sendable, Hashable, CustomStringConvertible {
    /// A piece of a path template: a literal segment or a named parameter.
    public enum Segment: Sendable, Hashable {
        case literal(String)
        case parameter(String)
    }

    public let method: HTTPMethod
    /// The path template, e.g. `/api/shopping/{week}`.
    public let template: String
    public let segments: [Segment]

    public init(_ method: HTTPMethod, _ template: String) {
        precondition(template.hasPrefix("/"), "a route template starts with '/': \(template)")
        self.method = method
        self.template = template
        self.segments = template.split(separator: "/", omittingEmptySubsequences: true).map { part in
            if part.hasPrefix("{") && part.hasSuffix("}") {
                return .parameter(String(part.dropFirst().dropLast()))
            }
            return .literal(String(part))
        }
    }

    public var description: String { "\(method.rawValue) \(template)" }

    /// The names of the template's parameters, in order.
    public var parameterNames: [String] {
        segments.compactMap { if case .parameter(let name) = $0 { name } else { nil } }
    }

    /// Prints the path with the given parameter values, percent-encoding each value.
    /// A parameter missing from `parameters` is a programming error.
    public func path(_ parameters: [String: String] = [:]) -> String {
        if segments.isEmpty { return "/" }
        var out = ""
        for segment in segments {
            out += "/"
            switch segment {
            case .literal(let text):
                out += text
            case .parameter(let name):
                guard let value = parameters[name] else {
                    preconditionFailure("route \(self) needs parameter '\(name)'")
                }
                out += Route.encodeSegment(value)
            }
        }
        return out
    }

    /// Matches already-split, percent-decoded path segments; returns the parameters or nil.
    public func match(segments pathSegments: [Substring]) -> [String: String]? {
        guard pathSegments.count == segments.count else { return nil }
        var parameters: [String: String] = [:]
        // Literals first, byte by byte (no dictionary is made for a route that does not match).
        for (segment, part) in zip(segments, pathSegments) {
            if case .literal(let text) = segment, !part.utf8.elementsEqual(text.utf8) { return nil }
        }
        for (segment, part) in zip(segments, pathSegments) {
            switch segment {
            case .literal:
                continue
            case .parameter(let name):
                if part.isEmpty { return nil }
                parameters[name] = String(part)
            }
        }
        return parameters
    }

    /// Matches a path such as `/api/apns/register` (no query string).
    public func match(path: String) -> [String: String]? {
        match(segments: Route.split(path: path))
    }

    /// Splits a path into its segments, dropping empty ones.
    public static func split(path: String) -> [Substring] {
        // Byte-wise, in one pass (every request's path goes through here). A `/` is one byte of
        // its own in UTF-8, so every cut is on a Unicode scalar boundary.
        var segments: [Substring] = []
        segments.reserveCapacity(6)
        let bytes = path.utf8
        var start = bytes.startIndex
        var index = start
        while index != bytes.endIndex {
            if bytes[index] == UInt8(ascii: "/") {
                if start != index { segments.append(path[start..<index]) }
                start = bytes.index(after: index)
            }
            index = bytes.index(after: index)
        }
        if start != bytes.endIndex { segments.append(path[start...]) }
        return segments
    }

    /// Percent-encodes one path segment: unreserved characters and `:`, `@` stay as they are.
    static func encodeSegment(_ value: String) -> String {
        var out = ""
        for byte in value.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: ":"), UInt8(ascii: "@"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = String(byte, radix: 16, uppercase: true)
                out += "%" + (hex.count == 1 ? "0" + hex : hex)
            }
        }
        return out
    }
}
