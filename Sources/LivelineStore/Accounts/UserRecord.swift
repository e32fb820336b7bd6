import Foundation
import LivelineModel

/// A stored user with the name of their household (`docs/engine.md`, "People, devices, auth").
public struct UserRecord: Sendable, Hashable {
    public var id: UserID
    public var householdID: HouseholdID
    public var householdName: String
    public var name: String
    /// A colour name such as `azure`.
    public var avatarTint: String
    public var emoji: String
    /// `de` or `en`.
    public var locale: String
    public var createdAt: Date

    public init(
        id: UserID, householdID: HouseholdID, householdName: String, name: String, avatarTint: String, emoji: String,
        locale: String, createdAt: Date
    ) {
        self.id = id
        self.householdID = householdID
        self.householdName = householdName
        self.name = name
        self.avatarTint = avatarTint
        self.emoji = emoji
        self.locale = locale
        self.createdAt = createdAt
    }

    /// The user as the API shows them.
    public var profile: UserProfile {
        UserProfile(userID: id.rawValue, householdID: householdID.rawValue, name: name, avatarTint: avatarTint, emoji: emoji, locale: locale)
    }

    /// The columns ``init(row:)`` reads, for `SELECT \(UserRecord.columns) FROM users u JOIN households h …`.
    static let columns = """
        u.id AS user_id, u.household_id, h.name AS household_name, u.name AS user_name, u.avatar_tint, u.emoji, \
        u.locale, u.created_at AS user_created_at
        """

    init(row: Row) throws {
        self.init(
            id: UserID(try row.int("user_id")), householdID: HouseholdID(try row.int("household_id")),
            householdName: try row.string("household_name"), name: try row.string("user_name"),
            avatarTint: try row.string("avatar_tint"), emoji: try row.string("emoji"), locale: try row.string("locale"),
            createdAt: try row.date("user_created_at")
        )
    }
}
