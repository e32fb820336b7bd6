import LivelineHTTP
import LivelineStore

/// Who is calling an `/api/…` route: the user behind the bearer token and their household.
public struct Caller: Sendable {
    public let user: UserRecord
    public let sessionID: Int

    public var userID: UserID { user.id }
    public var householdID: HouseholdID { user.householdID }
}
