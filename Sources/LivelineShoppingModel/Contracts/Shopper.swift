import LivelineModel

/// Someone in the shop right now, i.e. with an active shopping session
/// (`docs/contracts.md` §1: `Shopper = { name: String, avatarTint: String, userId: Int }`).
public struct Shopper: Codable, Hashable, Sendable {
    public var name: String
    /// Colour name, e.g. `"coral"`.
    public var avatarTint: String
    public var userId: Int

    public init(name: String, avatarTint: String, userId: Int) {
        self.name = name
        self.avatarTint = avatarTint
        self.userId = userId
    }
}
