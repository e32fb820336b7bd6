import LivelineEngine
import LivelineHTTP
import LivelineStore

/// Who is calling an `/api/…` route: the user behind the bearer token and their household.
public struct Caller: Sendable {
    public let user: UserRecord
    public let sessionID: Int

    public var userID: UserID { user.id }
    public var householdID: HouseholdID { user.householdID }
}

extension Caller {
    /// Who acts for a request of this caller: `by` when given (a member of the caller's
    /// household, else 403; a shared device acting for someone), else the caller. `by` is the
    /// request's number (API bodies keep `Int`).
    public func actor(_ by: Int?, engine: Engine) throws -> UserRecord {
        guard let by = by.map({ UserID($0) }), by != userID else { return user }
        guard let other = try engine.user(id: by), other.householdID == householdID else {
            throw HTTPError.forbidden("by must be a member of your household; user \(by) is not")
        }
        return other
    }
}
