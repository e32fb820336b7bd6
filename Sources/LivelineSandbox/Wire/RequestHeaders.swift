/// The header fields of one request, looked up by name, with whether any name was repeated.
///
/// Related APNs documentation: "Handling notification responses from APNs" (`docs/apns.md` §1.6):
/// `400 DuplicateHeaders` when a header is repeated. `cookie` may legally arrive split into
/// several fields in HTTP/2 (RFC 9113 §8.2.3), so it does not count.
struct RequestHeaders: Sendable {
    private var values: [String: String] = [:]
    private(set) var hasDuplicates = false

    init(_ fields: [(name: String, value: String)]) {
        values.reserveCapacity(fields.count)
        for (name, value) in fields {
            if values.updateValue(value, forKey: name) != nil, name != "cookie" { hasDuplicates = true }
        }
    }

    subscript(_ name: String) -> String? { values[name] }
}
