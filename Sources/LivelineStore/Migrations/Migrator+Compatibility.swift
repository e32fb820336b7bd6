import Foundation

/// Rolling upgrades (docs/operations.md, "Upgrading"): what each applied migration lets older
/// builds do, the instances that serve and the builds they are, and the contract steps that wait
/// for the last older instance to leave.
///
/// `schema_compatibility` has a row per applied migration (scope `core` or the feature's name):
/// `served_from`, the lowest version a build must know to serve on the database — for an
/// expanding migration the version before it, for a breaking or contracted one its own.
/// `liveline_instances` has a row per serving instance: the versions its build knows and when it
/// was last seen. Both are the migrator's own, made with `schema_migrations`.
extension Migrator {
    /// The scope of the core's migrations in `schema_compatibility`.
    static let coreScope = "core"

    /// How long an instance counts as serving after it was last seen; it writes every
    /// ``InstanceRegistry/heartbeatInterval`` seconds.
    public static let instanceLiveSeconds: TimeInterval = 60

    static let compatibilityTables = """
        CREATE TABLE IF NOT EXISTS schema_compatibility (
            scope TEXT NOT NULL,
            version BIGINT NOT NULL,
            served_from BIGINT NOT NULL,
            contracted_at BIGINT,
            PRIMARY KEY (scope, version)
        );
        CREATE TABLE IF NOT EXISTS liveline_instances (
            id TEXT PRIMARY KEY,
            versions TEXT NOT NULL,
            started_at BIGINT NOT NULL,
            seen_at BIGINT NOT NULL
        )
        """

    /// The versions this build knows, as an instance records them: `core:13 shopping:3 …`.
    public var knownVersions: String {
        ([(Self.coreScope, latestVersion)] + features.map { ($0.feature, $0.migrations.last?.version ?? 0) })
            .map { "\($0):\($1)" }.joined(separator: " ")
    }

    /// Records what older builds may do on the database `migration` was just applied to.
    static func recordCompatibility(of migration: Migration, among list: [Migration], scope: String, in transaction: any SQLTransaction) throws {
        let previous = list.map(\.version).filter { $0 < migration.version }.max() ?? 0
        let servedFrom = migration.compatibility == .expand ? previous : migration.version
        try transaction.execute(
            "INSERT INTO schema_compatibility (scope, version, served_from) VALUES ($1, $2, $3)",
            [.text(scope), SQLValue(migration.version), SQLValue(servedFrom)])
    }

    /// `served_from` of each version of `scope` that has a row.
    static func servedFrom(scope: String, in transaction: any SQLTransaction) throws -> [Int: Int] {
        let rows = try transaction.query("SELECT version, served_from FROM schema_compatibility WHERE scope = $1", [.text(scope)])
        return Dictionary(try rows.map { (try $0.int("version"), try $0.int("served_from")) }, uniquingKeysWith: max)
    }

    /// The applied migrations newer than this build that it serves on (one expanding step
    /// ahead), as `scope version` each; empty when the database is this build's.
    public func servedAhead(_ database: any Database) throws -> [String] {
        try database.read { transaction in
            var ahead = try Self.appliedVersions(transaction).subtracting(Self.retiredVersions).filter { $0 > latestVersion }.sorted()
                .map { "\(Self.coreScope) \($0)" }
            for feature in features {
                let latest = feature.migrations.last?.version ?? 0
                ahead += try Self.appliedVersions(feature: feature.feature, transaction).filter { $0 > latest }.sorted()
                    .map { "\(feature.feature) \($0)" }
            }
            return ahead
        }
    }

    /// Runs the contract step of each migration of this build that has one, is applied and has
    /// not been contracted, once no instance seen in the last ``instanceLiveSeconds`` knows less
    /// than it; it is then recorded as served from its own version (older builds are refused).
    /// The names of the migrations contracted.
    public func contractWhenNoOlderInstance(_ database: any Database, now: Date) throws -> [String] {
        let pending = [(Self.coreScope, migrations)] + features.map { ($0.feature, $0.migrations) }
        var contracted: [String] = []
        for (scope, list) in pending {
            for migration in list where migration.contract != nil {
                if try contract(migration, scope: scope, database: database, now: now) { contracted.append(migration.name) }
            }
        }
        return contracted
    }

    private func contract(_ migration: Migration, scope: String, database: any Database, now: Date) throws -> Bool {
        guard let sql = migration.contract else { return false }
        return try database.write { transaction in
            try Self.lock(database, transaction)
            let row = try transaction.queryOne(
                "SELECT contracted_at FROM schema_compatibility WHERE scope = $1 AND version = $2", [.text(scope), SQLValue(migration.version)])
            guard let row, try row.optionalInt("contracted_at") == nil else { return false }
            let live = try InstanceRegistry.versions(seenSince: now.addingTimeInterval(-Self.instanceLiveSeconds), in: transaction)
            // An instance whose build lacks the scope (a feature it does not have) never reads its tables.
            guard !live.contains(where: { ($0[scope] ?? migration.version) < migration.version }) else { return false }
            try transaction.executeScript(database.dialect.render(sql))
            try transaction.execute(
                "UPDATE schema_compatibility SET served_from = version, contracted_at = $3 WHERE scope = $1 AND version = $2",
                [.text(scope), SQLValue(migration.version), SQLValue(now)])
            return true
        }
    }
}

/// The serving instances and the builds they are (`liveline_instances`): each writes its row at
/// start and every ``heartbeatInterval`` seconds, and removes it when it stops; a row not seen for
/// ``Migrator/instanceLiveSeconds`` is an instance that died.
public struct InstanceRegistry: Sendable {
    /// Seconds between an instance's writes of its row.
    public static let heartbeatInterval: TimeInterval = 15

    public let database: any Database

    public init(database: any Database) {
        self.database = database
    }

    /// Writes (or refreshes) the row of instance `id`, whose build knows `versions`
    /// (``Migrator/knownVersions``).
    public func heartbeat(id: String, versions: String, now: Date) throws {
        try database.write { transaction in
            _ = try transaction.execute(
                """
                INSERT INTO liveline_instances (id, versions, started_at, seen_at) VALUES ($1, $2, $3, $3)
                ON CONFLICT (id) DO UPDATE SET versions = excluded.versions, seen_at = excluded.seen_at
                """, [.text(id), .text(versions), SQLValue(now)])
        }
    }

    /// Removes the row of instance `id` (its clean stop).
    public func remove(id: String) throws {
        try database.write { transaction in _ = try transaction.execute("DELETE FROM liveline_instances WHERE id = $1", [.text(id)]) }
    }

    /// The versions each instance seen since `since` knows, by scope.
    static func versions(seenSince since: Date, in transaction: any SQLTransaction) throws -> [[String: Int]] {
        try transaction.query("SELECT versions FROM liveline_instances WHERE seen_at >= $1", [SQLValue(since)]).map { row in
            var versions: [String: Int] = [:]
            for part in try row.string("versions").split(separator: " ") {
                let pair = part.split(separator: ":")
                if pair.count == 2, let version = Int(pair[1]) { versions[String(pair[0])] = version }
            }
            return versions
        }
    }
}
