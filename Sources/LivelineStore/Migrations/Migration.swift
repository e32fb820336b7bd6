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
    /// Whether a build that knows only the versions before this one keeps serving on a database
    /// it was applied to (docs/operations.md, "Upgrading").
    public var compatibility: Compatibility
    /// SQL that finishes an expanding migration once no instance of an older build is left (the
    /// drop of what only older builds used); until it ran, older builds keep serving, after it
    /// they are refused.
    public var contract: String?
    /// What only one backend runs, after `sql` (a trigger: PostgreSQL's needs a function).
    public var sqlByDialect: [SQLDialect: String]

    /// What older builds may do on a database this migration was applied to.
    public enum Compatibility: Sendable, Hashable {
        /// It only adds what older code never relies on — a table, a nullable or defaulted column,
        /// an index, rows of a kind older code skips: the build before it keeps serving (a
        /// rolling upgrade, and back down).
        case expand
        /// Older builds cannot serve on it: every instance runs the new build (stop all, start
        /// all). Every migration before rolling upgrades is one.
        case breaking
    }

    public init(
        version: Int, name: String, formerCoreVersion: Int? = nil, compatibility: Compatibility = .breaking, contract: String? = nil,
        sql: String, sqlByDialect: [SQLDialect: String] = [:]
    ) {
        self.version = version
        self.name = name
        self.sql = sql
        self.sqlByDialect = sqlByDialect
        self.formerCoreVersion = formerCoreVersion
        self.compatibility = contract == nil ? compatibility : .expand
        self.contract = contract
    }

    /// The script `dialect` runs: `sql` with its markers rendered, then that dialect's own part.
    public func script(for dialect: SQLDialect) -> String {
        dialect.render(sql) + (sqlByDialect[dialect].map { "\n" + $0 } ?? "")
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
