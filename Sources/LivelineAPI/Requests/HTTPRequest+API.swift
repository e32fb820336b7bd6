import LivelineHTTP

extension HTTPRequest {
    /// Longest context key accepted, in bytes.
    public static let maxContextKeyLength = 200

    /// The `{key}` parameter, checked by ``CommonFields/contextKey``: 1 to 200 bytes of letters,
    /// digits and `.` `_` `-` `:` `@`.
    public func contextKey() throws -> String {
        try CommonFields.contextKey.text(parameter("key"))
    }

    /// Whether `key` is 1 to 200 bytes of letters, digits and `.` `_` `-` `:` `@`.
    public static func isContextKey(_ key: String) -> Bool {
        let allowed = key.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: ":"), UInt8(ascii: "@"):
                true
            default:
                false
            }
        }
        return allowed && (1...maxContextKeyLength).contains(key.utf8.count)
    }

    /// An optional whole-number query parameter within `range`.
    public func integerQuery(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = query[name] else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw HTTPError.badRequest("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'", field: name)
        }
        return value
    }
}
