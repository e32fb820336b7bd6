import LivelineModel

/// The shape of a contract file as `/openapi.json` documents it (`ContractFile`): decoded first,
/// so a member of a wrong JSON type or a missing one is refused in the API's words
/// (`HTTPRequest.decode`); what the shape cannot say (names, references, rules) is
/// ``LivelineModel/ContractFile/parse(_:)``'s to refuse after.
struct ContractFileBody: Decodable {
    struct Field: Decodable {
        var key: String
        var type: String
        var optional: Bool?
        var since: Int?
        var summary: String?
    }

    struct NamedType: Decodable {
        var `enum`: [String]?
        var fields: [Field]?
    }

    struct Example: Decodable {
        var attributes: JSONValue?
        var contentState: JSONValue?
    }

    struct Lifecycle: Decodable {
        var staleAfter: Double?
        var dismissAfter: Double?
        var priorityBudget: Int?
        var materialKeys: [String]?
    }

    struct Card: Decodable {
        var lockScreen: String
        var compactLeading: String?
        var compactTrailing: String?
        var expanded: String?
    }

    var format: String
    var type: String
    var version: Int
    var fingerprint: String?
    var attributes: [Field]
    var contentState: [Field]
    var types: [String: NamedType]?
    var example: Example?
    var lifecycle: Lifecycle?
    var card: Card?
}
