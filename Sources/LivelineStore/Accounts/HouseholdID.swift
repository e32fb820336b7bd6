/// The id of a household (`households.id`; `docs/engine.md`, "People, devices, auth").
///
/// A type of its own, so a household's id cannot be passed where a user's id or a token's row id
/// is expected.
public struct HouseholdID: IntegerID {
    public let rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }
}
