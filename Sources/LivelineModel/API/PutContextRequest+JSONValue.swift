import Foundation

extension PutContextRequest {
    /// The request read from a body already parsed into a ``JSONValue`` — the common case of
    /// `PUT /v1/contexts/{key}` without `JSONDecoder`'s walk through `Codable` (most of the cost of
    /// the call, `docs/decisions/the-write-path-json-without-codable.md`). Nil when the body
    /// is anything but a plain well-formed request (a member of the wrong kind, a missing one, an
    /// `alert`): the caller then decodes it with `JSONDecoder`, which gives the exact error, so
    /// both paths accept and refuse the same bodies.
    public init?(plainBody body: JSONValue) {
        guard case .object(let members) = body, case .string(let type)? = members["type"], let contentState = members["contentState"]
        else { return nil }
        var attributes: JSONValue?
        switch members["attributes"] {
        case nil, .null?: attributes = nil
        case let value?: attributes = value
        }
        var priority: Int?
        switch members["priority"] {
        case nil, .null?: priority = nil
        case .int(let value)?: priority = value
        default: return nil
        }
        var relevanceScore: Double?
        switch members["relevanceScore"] {
        case nil, .null?: relevanceScore = nil
        case .int(let value)?: relevanceScore = Double(value)
        case .double(let value)?: relevanceScore = value
        default: return nil
        }
        switch members["alert"] {
        case nil, .null?: break
        default: return nil  // a typed member: JSONDecoder's path
        }
        self.init(type: type, attributes: attributes, contentState: contentState, priority: priority, relevanceScore: relevanceScore)
    }
}
