import LivelineModel

/// An open item of the shopping list, shown so it can be checked off from the Dynamic Island
/// (`docs/contracts.md` §1: `OpenItem = { id: Int, label: String }`).
public struct OpenItem: Codable, Hashable, Sendable {
    public var id: Int
    public var label: String

    public init(id: Int, label: String) {
        self.id = id
        self.label = label
    }
}
