/// The typed ids bound as the `integer` they are stored as; rows are read back with
/// `HouseholdID(try row.int("household_id"))` and the like.
extension SQLValue {
    public init(_ id: HouseholdID) { self = .integer(Int64(id.rawValue)) }
    /// `.null` for `nil` (a context without an owner).
    public init(_ id: HouseholdID?) { self = id.map { SQLValue($0) } ?? .null }
    public init(_ id: UserID) { self = .integer(Int64(id.rawValue)) }
    public init(_ id: PushTokenID) { self = .integer(Int64(id.rawValue)) }
}
