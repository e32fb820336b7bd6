/// A member of a household as the API shows it.
public struct UserProfile: Codable, Sendable, Hashable {
    public var userID: Int
    public var householdID: Int
    public var name: String
    /// A colour name such as `azure` or `coral`.
    public var avatarTint: String
    public var emoji: String
    /// `de` or `en`.
    public var locale: String

    public init(userID: Int, householdID: Int, name: String, avatarTint: String, emoji: String, locale: String) {
        self.userID = userID
        self.householdID = householdID
        self.name = name
        self.avatarTint = avatarTint
        self.emoji = emoji
        self.locale = locale
    }

    enum CodingKeys: String, CodingKey {
        case userID = "userId", householdID = "householdId", name, avatarTint, emoji, locale
    }
}

/// Answer of `GET /api/me`: who the bearer token speaks for, and their household.
public struct MeResponse: Codable, Sendable, Hashable {
    public var user: UserProfile
    public var householdName: String
    public var members: [UserProfile]

    public init(user: UserProfile, householdName: String, members: [UserProfile]) {
        self.user = user
        self.householdName = householdName
        self.members = members
    }
}

/// What `liveline users add` prints: `{"userId", "householdId", "token"}`.
public struct UserCreated: Codable, Sendable, Hashable {
    public var userID: Int
    public var householdID: Int
    /// The bearer token of the new device session; shown once, stored only as a hash.
    public var token: String

    public init(userID: Int, householdID: Int, token: String) {
        self.userID = userID
        self.householdID = householdID
        self.token = token
    }

    enum CodingKeys: String, CodingKey {
        case userID = "userId", householdID = "householdId", token
    }
}
