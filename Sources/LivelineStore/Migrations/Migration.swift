/// One numbered schema change, applied once and recorded: the core's in `schema_migrations`, a
/// feature's in `feature_migrations` under the feature's name (``FeatureMigrations``).
///
/// `sql` is a script of `;`-separated statements written once for both backends, with the
/// ``SQLDialect`` markers (`{{primaryKey}}`, `{{blob}}`) for what differs. Times are `BIGINT` unix
/// milliseconds and booleans `INTEGER` 0/1. A released migration never changes; a new schema
/// is a new version (docs/engine.md, "Storage").
public struct Migration: Sendable, Hashable {
    public var version: Int
    public var name: String
    public var sql: String
    /// A feature's migration that was once the core's migration of this version: a database
    /// that recorded that core version has it applied already (it is recorded for the feature,
    /// not run again).
    public var formerCoreVersion: Int?

    public init(version: Int, name: String, formerCoreVersion: Int? = nil, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
        self.formerCoreVersion = formerCoreVersion
    }
}

/// A feature's own migrations, numbered from 1 within the feature and recorded under its name.
public struct FeatureMigrations: Sendable, Hashable {
    /// The feature's name (a short lowercase word); it keys its rows in `feature_migrations`.
    public var feature: String
    /// Oldest first.
    public var migrations: [Migration]

    public init(feature: String, migrations: [Migration]) {
        self.feature = feature
        self.migrations = migrations.sorted { $0.version < $1.version }
    }
}
