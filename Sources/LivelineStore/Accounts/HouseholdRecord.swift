import Foundation

/// A stored household: the unit whose members see each other's data (`docs/engine.md`, "People,
/// devices, auth").
public struct HouseholdRecord: Sendable, Hashable {
    public var id: HouseholdID
    /// Unique across the server.
    public var name: String
    /// The household default, `de` unless its first user chose otherwise.
    public var locale: String
    public var createdAt: Date

    public init(id: HouseholdID, name: String, locale: String, createdAt: Date) {
        self.id = id
        self.name = name
        self.locale = locale
        self.createdAt = createdAt
    }

    init(row: Row) throws {
        self.init(
            id: HouseholdID(try row.int("id")), name: try row.string("name"), locale: try row.string("locale"),
            createdAt: try row.date("created_at")
        )
    }
}
