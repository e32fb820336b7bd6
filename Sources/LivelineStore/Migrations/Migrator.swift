import Foundation

/// Brings a database's schema up to date, and refuses one written by a newer Liveline.
///
/// Each migration runs in its own write transaction together with its row in
/// `schema_migrations (version, name, applied_at)`, so a failing migration leaves nothing behind
/// and a second process opening the same database at the same time applies nothing twice (the
/// applied versions are read again under the write lock). (`engine.md`, "Storage": "Migrations
/// are numbered and applied once; a database newer than the binary is refused with a clear
/// message".)
public struct Migrator: Sendable {
    /// Liveline's schema, oldest first.
    public static let liveline: [Migration] = [.v1, .v2, .v3, .v4, .v5, .v6, .v7]

    /// The migrations this build knows, in ascending version order.
    public var migrations: [Migration]

    public init(migrations: [Migration] = Migrator.liveline) {
        self.migrations = migrations.sorted { $0.version < $1.version }
    }

    /// The highest version this build knows (0 when it knows none).
    public var latestVersion: Int { migrations.last?.version ?? 0 }

    /// Applies every migration the database lacks and returns them, in order.
    ///
    /// Throws `.schemaTooNew` when the database records a version above ``latestVersion``.
    @discardableResult
    public func migrate(_ database: any Database, now: Date = Date()) throws -> [Migration] {
        try database.write { transaction in
            try transaction.executeScript("""
                CREATE TABLE IF NOT EXISTS schema_migrations (
                    version BIGINT PRIMARY KEY,
                    name TEXT NOT NULL,
                    applied_at BIGINT NOT NULL
                )
                """)
        }
        try refuseNewer(database, applied: try database.read(Self.appliedVersions))
        var applied: [Migration] = []
        for migration in migrations {
            let didApply = try database.write { transaction in
                let versions = try Self.appliedVersions(transaction)
                try refuseNewer(database, applied: versions)
                guard !versions.contains(migration.version) else { return false }
                try transaction.executeScript(database.dialect.render(migration.sql))
                try transaction.execute(
                    "INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, $3)",
                    [SQLValue(migration.version), SQLValue(migration.name), SQLValue(now)]
                )
                return true
            }
            if didApply { applied.append(migration) }
        }
        return applied
    }

    /// The versions recorded in `schema_migrations`.
    public static func appliedVersions(_ transaction: any SQLTransaction) throws -> Set<Int> {
        Set(try transaction.query("SELECT version FROM schema_migrations").map { try $0.int("version") })
    }

    private func refuseNewer(_ database: any Database, applied: Set<Int>) throws {
        guard let highest = applied.max(), highest > latestVersion else { return }
        throw StoreError(.schemaTooNew, """
            the database at \(database.location) was written by a newer Liveline (schema version \(highest); \
            this build knows up to \(latestVersion)). Use a newer liveline or another data folder.
            """)
    }
}
