import Foundation
import LivelineModel
import LivelineStore

/// Times on whole milliseconds (the stored precision), so round trips compare equal.
func time(_ seconds: Int) -> Date {
    Date(timeIntervalSince1970: 1_750_000_000 + Double(seconds))
}

extension Store {
    /// A user in `household` with a session for `tokenHash` (distinct per call unless given).
    func makeUser(_ name: String, household: String = "Home", locale: String = "de", tokenHash: String? = nil) throws -> UserRecord {
        try accounts.createUser(
            household: household, name: name, avatarTint: "azure", emoji: "🙂", locale: locale,
            tokenHash: tokenHash ?? "hash-\(name)-\(household)", now: time(0)
        )
    }
}

extension TokenRegistration {
    /// An `alert` registration for `user` on `device`.
    static func alert(_ user: UserRecord, device: String, token: String, environment: PushEnvironment = .production) -> Self {
        TokenRegistration(
            householdID: user.householdID, userID: user.id, deviceID: device, kind: .alert, environment: environment,
            token: token
        )
    }
}
