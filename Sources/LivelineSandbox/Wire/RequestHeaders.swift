/// The header fields of one request, looked up by name, with whether any name was repeated.
///
/// Related APNs documentation: "Handling notification responses from APNs" (`docs/apns.md` §1.6):
/// `400 DuplicateHeaders` when a header is repeated. `cookie` may legally arrive split into
/// several fields in HTTP/2 (RFC 9113 §8.2.3), so it does not count.
///
/// A request has a handful of fields, so they are kept as received and searched in order, without
/// hashing (names of another length are passed over without comparing them); a repeated name finds
/// its last value.
struct RequestHeaders: Sendable {
    private let fields: [(name: String, value: String)]
    let hasDuplicates: Bool
    /// Bit n: some name has n (mod 64) bytes. A look-up for a name of a length none has (a header
    /// the request does not carry) ends at once.
    private let lengths: UInt64

    /// Above this many fields, repeats are found with a set rather than by comparing every pair.
    private static let pairwiseLimit = 16

    init(_ fields: [(name: String, value: String)]) {
        self.fields = fields
        var duplicates = false
        var lengths: UInt64 = 0
        for field in fields { lengths |= Self.bit(field.name) }
        self.lengths = lengths
        if fields.count <= Self.pairwiseLimit {
            // Only a name whose length came before can be a repeat.
            var earlierLengths: UInt64 = 0
            search: for index in fields.indices {
                let bit = Self.bit(fields[index].name)
                defer { earlierLengths |= bit }
                guard earlierLengths & bit != 0 else { continue }
                for earlier in 0..<index where Self.same(fields[earlier].name, fields[index].name) {
                    if fields[index].name == "cookie" { break }
                    duplicates = true
                    break search
                }
            }
        } else {
            var seen = Set<String>(minimumCapacity: fields.count)
            for field in fields where !seen.insert(field.name).inserted && field.name != "cookie" {
                duplicates = true
                break
            }
        }
        hasDuplicates = duplicates
    }

    subscript(_ name: String) -> String? {
        guard lengths & Self.bit(name) != 0 else { return nil }
        let length = name.utf8.count
        return fields.withUnsafeBufferPointer { fields in
            var index = fields.endIndex
            while index > fields.startIndex {
                index -= 1
                if fields[index].name.utf8.count == length && fields[index].name == name { return fields[index].value }
            }
            return nil
        }
    }

    /// `name`'s bit in `lengths`.
    private static func bit(_ name: String) -> UInt64 {
        1 << UInt64(name.utf8.count & 63)
    }

    /// `==`, after the cheap check of the lengths (a string's UTF-8 count is stored in it).
    private static func same(_ one: String, _ other: String) -> Bool {
        one.utf8.count == other.utf8.count && one == other
    }
}
