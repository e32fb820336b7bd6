import LivelineHTTP

/// The id a feature hands out for a thing it owns (a meal-planning session `cs_…`, a ride
/// `tr_…`): its prefix and 20 random lowercase letters or digits (about 103 bits).
public enum PublicID {
    /// A fresh id starting with `prefix`.
    public static func make(prefix: String) -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789")
        var generator = SystemRandomNumberGenerator()
        return prefix + String((0..<20).map { _ in alphabet[Int(generator.next(upperBound: UInt64(alphabet.count)))] })
    }

    /// Whether `text` could be an id with `prefix`: the prefix, then ASCII letters or digits, at
    /// most 64 characters in all.
    public static func isValid(_ text: String, prefix: String) -> Bool {
        text.hasPrefix(prefix) && text.utf8.count <= 64
            && text.utf8.dropFirst(prefix.utf8.count).allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
            }
    }
}

extension HTTPRequest {
    /// The `{id}` parameter as an id with `prefix`, else 400 naming `id` and `what` it must be
    /// (e.g. "a ride's id").
    public func publicID(prefix: String, what: String) throws -> String {
        let text = try parameter("id")
        guard PublicID.isValid(text, prefix: prefix) else {
            throw HTTPError.badRequest("id must be \(what) (\(prefix) and letters or digits), not '\(text.prefix(40))'", field: "id")
        }
        return text
    }
}
