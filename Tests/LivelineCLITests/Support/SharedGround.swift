import Foundation
import LivelineCrypto
import LivelineSandbox
import LivelineStore
import LivelineTestSupport

/// What several `serve` processes share in a test: an APNs sandbox, a fresh PostgreSQL schema, the
/// environment that points them at both (outbox lease 5 s, a pool of 4), and a user's bearer token.
struct SharedGround {
    let folder: URL
    let sandbox: APNSSandbox
    let url: String
    let drop: @Sendable () -> Void
    let environment: [String: String]
    let bearer: String

    /// `name` prefixes the temporary folder; `adminKey` is every instance's.
    init(name: String, adminKey: String) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)")
        sandbox = try APNSSandbox.start(SandboxConfiguration(folder: folder.appendingPathComponent("sandbox")))
        (url, drop) = try TestPostgres.freshURL()
        environment = CrashRecoveryTests.environment(sandbox).merging([
            "LIVELINE_ADMIN_KEY": adminKey, "LIVELINE_DATABASE_URL": url, "LIVELINE_OUTBOX_LEASE_S": "5", "LIVELINE_DATABASE_POOL": "4",
        ]) { $1 }
        bearer = SecureRandom.token(prefix: "ll_")
        let store = try Store.open(PostgresDatabase(settings: PostgresSettings(url: url), poolSize: 1))
        // The schema as a serving build leaves it: the core's contract steps ran (migration 19's).
        _ = try Migrator().contractWhenNoOlderInstance(store.database, now: Date())
        _ = try store.accounts.createUser(
            household: "Fisch", name: "Dennis", avatarTint: "azure", emoji: "🐟", locale: "de", tokenHash: SHA256.hex(bearer), now: Date())
    }

    /// Stops the sandbox, drops the schema and removes the folder.
    func tearDown() {
        sandbox.stop()
        drop()
        try? FileManager.default.removeItem(at: folder)
    }
}

/// A test run on a ``SharedGround``: its parts by name.
protocol OnSharedGround {
    var ground: SharedGround { get }
}

extension OnSharedGround {
    var folder: URL { ground.folder }
    var sandbox: APNSSandbox { ground.sandbox }
    var url: String { ground.url }
    var environment: [String: String] { ground.environment }
    var bearer: String { ground.bearer }
}
