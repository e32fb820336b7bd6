import Foundation

extension LiveActivityContract {
    /// No rule: the app cannot tell which context an activity of this type shows.
    public static func contextKey(of attributes: Self, userID: Int, householdID: Int) -> String? { nil }

    /// The context key of an activity with these attributes (JSON), or nil when they do not
    /// decode or the contract has no rule.
    public static func contextKey(attributes: Data, userID: Int, householdID: Int) -> String? {
        guard let decoded = try? JSONDecoder().decode(Self.self, from: attributes) else { return nil }
        return contextKey(of: decoded, userID: userID, householdID: householdID)
    }
}
