/// One numbered schema change, applied once and recorded in `schema_migrations`.
///
/// `sql` is a script of `;`-separated statements written once for both backends, with the
/// ``SQLDialect`` markers (`{{primaryKey}}`, `{{blob}}`) for what differs. Times are `BIGINT` unix
/// milliseconds and booleans `INTEGER` 0/1. A released migration never changes; a new schema
/// is a new version (`engine.md`, "Storage": migrations are numbered and applied once).
public struct Migration: Sendable, Hashable {
    public var version: Int
    public var name: String
    public var sql: String

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
    }
}
