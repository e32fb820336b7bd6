import Foundation

/// Brings a database's schema up to date, and refuses one written by a newer Liveline.
///
/// The core's migrations come first, then each feature's, in the order the features are given.
/// Each migration runs in its own write transaction together with its record (core:
/// `schema_migrations (version, name, applied_at)`; a feature's: `feature_migrations (feature,
/// version, name, applied_at)`), so a failing migration leaves nothing behind and a second process
/// opening the same database at the same time applies nothing twice (the applied versions are read
/// again under the write lock). A database that records a version this build does not know — of
/// the core, or of a feature this build has — is refused with a clear message, unless that
/// version is one expanding step past this build's (``Migration/Compatibility/expand``,
/// recorded in `schema_compatibility`): then this build serves on it, so instances can be
/// upgraded one at a time (docs/operations.md, "Upgrading").
public struct Migrator: Sendable {
    /// Liveline's core schema, oldest first.
    public static let liveline: [Migration] = [.v1, .v2, .v3, .v4, .v5, .v8, .v9, .v10, .v11, .v12, .v13, .v14, .v15, .v16, .v17, .v18, .v19]

    /// Core versions that once belonged to a feature's tables and were moved to that feature (its
    /// migrations name them as ``Migration/formerCoreVersion``). They are never used again.
    public static let retiredVersions: Set<Int> = [6, 7]

    /// The core migrations this build knows, in ascending version order.
    public var migrations: [Migration]
    /// The features' migrations, in the order they are applied.
    public var features: [FeatureMigrations]

    public init(migrations: [Migration] = Migrator.liveline, features: [FeatureMigrations] = []) {
        self.migrations = migrations.sorted { $0.version < $1.version }
        self.features = features
    }

    /// The highest core version this build knows (0 when it knows none).
    public var latestVersion: Int { migrations.map(\.version).max() ?? 0 }

    /// Applies every migration the database lacks and returns them, in order (the core's, then
    /// each feature's).
    ///
    /// Throws `.schemaTooNew` when the database records a version above what this build knows.
    @discardableResult
    public func migrate(_ database: any Database, now: Date = Date()) throws -> [Migration] {
        try database.write { transaction in
            try Self.lock(database, transaction)
            try transaction.executeScript(
                """
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version BIGINT PRIMARY KEY,
                    name TEXT NOT NULL,
                    applied_at BIGINT NOT NULL
                );
                CREATE TABLE IF NOT EXISTS feature_migrations (
                    feature TEXT NOT NULL,
                    version BIGINT NOT NULL,
                    name TEXT NOT NULL,
                    applied_at BIGINT NOT NULL,
                    PRIMARY KEY (feature, version)
                );
                \(Self.compatibilityTables)
                """)
        }
        try database.read { transaction in try refuseNewer(database, in: transaction) }
        var applied: [Migration] = []
        for migration in migrations {
            let didApply = try database.write { transaction in
                try Self.lock(database, transaction)
                try refuseNewer(database, in: transaction)
                guard !(try Self.appliedVersions(transaction)).contains(migration.version) else { return false }
                try transaction.executeScript(migration.script(for: database.dialect))
                try transaction.execute(
                    "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
                    [SQLValue(migration.version), SQLValue(migration.name), SQLValue(now)]
                )
                try Self.recordCompatibility(of: migration, among: migrations, scope: Self.coreScope, in: transaction)
                return true
            }
            if didApply { applied.append(migration) }
        }
        for feature in features {
            for migration in feature.migrations {
                let didApply = try database.write { transaction in
                    try Self.lock(database, transaction)
                    try refuseNewer(database, in: transaction)
                    guard !(try Self.appliedVersions(feature: feature.feature, transaction)).contains(migration.version) else {
                        // Applied by a build that did not record the former core version yet.
                        if let version = migration.formerCoreVersion, !(try Self.appliedVersions(transaction)).contains(version) {
                            try Self.recordCore(version, name: migration.name, now: now, in: transaction)
                        }
                        return false
                    }
                    // Applied already as the core migration it once was: recorded, not run again.
                    let former = try migration.formerCoreVersion.map { try Self.appliedVersions(transaction).contains($0) } ?? false
                    if !former {
                        try transaction.executeScript(migration.script(for: database.dialect))
                        try Self.recordCompatibility(of: migration, among: feature.migrations, scope: feature.feature, in: transaction)
                        // Recorded under its former core version too, so a build from before the
                        // move (which still runs it as that core version) can open the database.
                        if let version = migration.formerCoreVersion { try Self.recordCore(version, name: migration.name, now: now, in: transaction) }
                    }
                    try transaction.execute(
                        "INSERT INTO feature_migrations (feature, version, name, applied_at) VALUES ($1, $2, $3, $4)",
                        [SQLValue(feature.feature), SQLValue(migration.version), SQLValue(migration.name), SQLValue(now)]
                    )
                    return !former
                }
                if didApply { applied.append(migration) }
            }
        }
        return applied
    }

    /// Instances starting at the same moment migrate one after the other: on PostgreSQL each
    /// migration's transaction first takes an advisory lock of the schema (held to its end), so a
    /// second instance sees what the first applied. SQLite's writes are serialised already.
    static func lock(_ database: any Database, _ transaction: any SQLTransaction) throws {
        guard database.dialect == .postgres else { return }
        // A migration (or waiting for another instance's) may take longer than a statement may.
        try transaction.executeScript("SET LOCAL statement_timeout = 0")
        try transaction.execute("SELECT pg_advisory_xact_lock(72616, hashtext(current_schema()))")
    }

    private static func recordCore(_ version: Int, name: String, now: Date, in transaction: any SQLTransaction) throws {
        try transaction.execute(
            "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)", [SQLValue(version), SQLValue(name), SQLValue(now)]
        )
    }

    /// The core versions recorded in `schema_migrations`.
    public static func appliedVersions(_ transaction: any SQLTransaction) throws -> Set<Int> {
        Set(try transaction.query("SELECT version FROM schema_migrations").map { try $0.int("version") })
    }

    /// The versions of `feature` recorded in `feature_migrations`.
    public static func appliedVersions(feature: String, _ transaction: any SQLTransaction) throws -> Set<Int> {
        Set(try transaction.query("SELECT version FROM feature_migrations WHERE feature = $1", [.text(feature)]).map { try $0.int("version") })
    }

    private func refuseNewer(_ database: any Database, in transaction: any SQLTransaction) throws {
        let core = try Self.appliedVersions(transaction).subtracting(Self.retiredVersions)
        try Self.refuse(
            core, scope: Self.coreScope, label: "schema version", latest: latestVersion, database: database, in: transaction)
        for feature in features {
            try Self.refuse(
                try Self.appliedVersions(feature: feature.feature, transaction), scope: feature.feature,
                label: "\(feature.feature) schema version", latest: feature.migrations.last?.version ?? 0, database: database, in: transaction)
        }
    }

    /// Refuses `applied` when a version above `latest` is more than one expanding step ahead:
    /// one whose recorded `served_from` (the lowest version a build must know to serve on it;
    /// none recorded: the version itself) is above `latest`.
    private static func refuse(
        _ applied: Set<Int>, scope: String, label: String, latest: Int, database: any Database, in transaction: any SQLTransaction
    ) throws {
        let ahead = applied.filter { $0 > latest }
        guard !ahead.isEmpty else { return }
        let servedFrom = try servedFrom(scope: scope, in: transaction)
        let blocking = ahead.filter { (servedFrom[$0] ?? $0) > latest }
        guard let highest = ahead.max(), !blocking.isEmpty else { return }
        var message = """
            the database at \(database.location) was written by a newer Liveline (\(label) \(highest); \
            this build knows up to \(latest)). Use a newer liveline or another data folder.
            """
        if blocking.contains(where: { (servedFrom[$0] ?? $0) < $0 }) {
            message += """
                 A build serves on a schema at most one expanding migration newer than its own: upgrade \
                instances through each version in turn (docs/operations.md, "Upgrading").
                """
        }
        throw StoreError(.schemaTooNew, message)
    }
}
