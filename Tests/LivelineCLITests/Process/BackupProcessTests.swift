import Foundation
import LivelineCrypto
import LivelineSandbox
import LivelineStore
import LivelineTestSupport
import Synchronization
import Testing

/// Backups of a running server, restored (docs/operations.md, "Backups"): taken while five
/// clients write, a backup holds every write acknowledged before it began, and the restored
/// server sends the pushes that waited in its outbox. SQLite: `liveline backup` and `liveline
/// restore` into a fresh folder; PostgreSQL: `pg_dump` and `pg_restore` after the schema is lost.
@Suite struct BackupProcessTests {
    static let clients = 5

    @Test func aSQLiteBackupTakenWhileFiveClientsWriteIsRestoredIntoAFreshFolderWithEveryAcknowledgedWrite() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-backup-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (data, backup, fresh) = (
            folder.appendingPathComponent("data"), folder.appendingPathComponent("backup"), folder.appendingPathComponent("restored")
        )
        let sandbox = try APNSSandbox.start(SandboxConfiguration(folder: folder.appendingPathComponent("sandbox")))
        defer { sandbox.stop() }
        let bearer = try CrashRecoveryTests.user(in: data)
        let environment = CrashRecoveryTests.environment(sandbox)

        let first = try ServeProcess(data: data, environment: environment.merging(["LIVELINE_DISPATCHER": "off"]) { $1 })
        let tokens = try Self.registerPhones(port: first.port, bearer: bearer, sandbox: sandbox)
        let acknowledged = try await Self.whileFiveClientsWrite(port: first.port) {
            try Self.run(["backup", backup.path, "--data", data.path])
        }
        first.kill(SIGTERM)

        let said = try Self.run(["restore", backup.path, "--data", fresh.path])
        #expect(said.contains("pushes waiting in the outbox"), "\(said)")
        let database = try SQLiteDatabase(folder: fresh)
        #expect(try database.read { try $0.queryOne("PRAGMA integrity_check")?.string("integrity_check") } == "ok")
        #expect(try Store.openSQLite(folder: fresh).outbox.depth(now: Date()).due >= Self.clients, "the pushes that waited are restored")

        let second = try ServeProcess(data: fresh, environment: environment)
        defer { second.kill(SIGTERM) }
        #expect(!second.startText.contains("a new VAPID key"), "the keys are restored: \(second.startText)")
        await Self.expectRestored(port: second.port, sandbox: sandbox, tokens: tokens, acknowledged: acknowledged)
    }

    @Test func aPostgreSQLDumpTakenWhileFiveClientsWriteIsRestoredAfterTheSchemaIsLost() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-pgdump-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let (schema, drop) = try TestPostgres.freshSchema()
        defer { drop() }
        let server = try TestPostgres.url()
        let url = server + (server.contains("?") ? "&" : "?") + "options=-csearch_path%3D" + schema
        let sandbox = try APNSSandbox.start(SandboxConfiguration(folder: folder.appendingPathComponent("sandbox")))
        defer { sandbox.stop() }
        let bearer = SecureRandom.token(prefix: "ll_")
        _ = try Store.open(PostgresDatabase(settings: PostgresSettings(url: url), poolSize: 1)).accounts.createUser(
            household: "Fisch", name: "Dennis", avatarTint: "azure", emoji: "🐟", locale: "de", tokenHash: SHA256.hex(bearer), now: Date())
        let environment = CrashRecoveryTests.environment(sandbox).merging(["LIVELINE_DATABASE_URL": url]) { $1 }

        let first = try ServeProcess(
            data: folder.appendingPathComponent("data"), environment: environment.merging(["LIVELINE_DISPATCHER": "off"]) { $1 })
        let tokens = try Self.registerPhones(port: first.port, bearer: bearer, sandbox: sandbox)
        let dump = folder.appendingPathComponent("liveline.dump")
        let acknowledged = try await Self.whileFiveClientsWrite(port: first.port) {
            try Self.run(["--format=custom", "--schema=\(schema)", "--file=\(dump.path)", "--dbname=\(server)"], program: "/usr/bin/pg_dump")
        }
        first.kill(SIGTERM)

        drop()  // the database is lost
        _ = try Self.run(["--dbname=\(server)", "--no-owner", dump.path], program: "/usr/bin/pg_restore")
        let second = try ServeProcess(data: folder.appendingPathComponent("data"), environment: environment)
        defer { second.kill(SIGTERM) }
        await Self.expectRestored(port: second.port, sandbox: sandbox, tokens: tokens, acknowledged: acknowledged)
    }

    /// Five phones following `trip:backup-0…4`, registered with the server and the sandbox.
    static func registerPhones(port: Int, bearer: String, sandbox: APNSSandbox) throws -> [String] {
        try (0..<clients).map { index in
            let token = String(repeating: String(format: "%02x", 0xb0 + index), count: 32)
            sandbox.registerDevice(token: token)
            let registered = try TestHTTPConnection(port: port).request(
                "POST", "/api/apns/register", headers: ["Authorization": "Bearer \(bearer)"],
                json:
                    #"{"kind":"la-update","token":"\#(token)","device_id":"phone-\#(index)","context_key":"trip:backup-\#(index)","attributes_type":"TripLiveActivityAttributes"}"#
            )
            try #require(registered.status == 200, "\(registered.text)")
            return token
        }
    }

    /// Runs `backup` while five clients write, and they go on after it; per client, the highest
    /// revision acknowledged before the backup began.
    static func whileFiveClientsWrite(port: Int, backup: @escaping @Sendable () throws -> String) async throws -> [Int] {
        let writers = Writers(port: port)
        writers.start()
        defer { writers.stop() }
        #expect(await eventually { writers.acknowledgedCount(each: 20) }, "every client writes")
        let started = Date()
        _ = try await offThePool { try backup() }
        let acknowledged = writers.acknowledged(before: started)
        let afterBackup = writers.total
        #expect(await eventually { writers.total > afterBackup + 20 }, "the clients went on writing")
        return acknowledged
    }

    /// The restored server has every acknowledged revision, and each phone gets its context's
    /// restored state from the outbox.
    static func expectRestored(port: Int, sandbox: APNSSandbox, tokens: [String], acknowledged: [Int]) async {
        for (index, token) in tokens.enumerated() {
            let read = try? TestHTTPConnection(port: port).request(
                "GET", "/v1/contexts/trip:backup-\(index)", headers: ["Authorization": "Bearer \(CrashRecoveryTests.adminKey)"])
            let rev = read?.json?["rev"] as? Int ?? 0
            #expect(rev >= acknowledged[index], "client \(index): rev \(rev) restored, \(acknowledged[index]) acknowledged before the backup")
            let delay = (read?.json?["contentState"] as? [String: Any])?["delay"] as? Int ?? -1
            let sent = await eventually(timeout: 30) {
                sandbox.accepted(token: token).contains { String(decoding: $0.payload, as: UTF8.self).contains("\"delay\":\(delay),") }
            }
            #expect(sent, "phone \(index) got the restored state (delay \(delay)): \(sandbox.accepted(token: token).count) pushes")
        }
    }

    /// Runs `liveline` (or `program`) with `arguments` to its end; its output, or a failure with it.
    @discardableResult
    static func run(_ arguments: [String], program: String = ServeProcess.executable.path) throws -> String {
        let run = try ChildProcess.run(program, arguments, timeout: 60)
        let said = String(decoding: run.output, as: UTF8.self) + String(decoding: run.errors, as: UTF8.self)
        try #require(run.termination == .exited(0), "\(program) \(arguments.first ?? ""): \(said)")
        return said
    }

    /// Five clients, each `PUT`ting its own context as fast as it is answered, on threads of their own.
    final class Writers: Sendable {
        let port: Int
        /// Per client: each acknowledged revision and when its answer came.
        private let acknowledgements = Mutex<[[(rev: Int, at: Date)]]>(Array(repeating: [], count: BackupProcessTests.clients))
        private let stopped = Atomic<Bool>(false)

        init(port: Int) { self.port = port }

        func start() {
            for index in 0..<BackupProcessTests.clients {
                Thread.detachNewThread { [self] in
                    var delay = 0
                    while !stopped.load(ordering: .relaxed) {
                        delay += 1
                        let put = try? TestHTTPConnection(port: port).request(
                            "PUT", "/v1/contexts/trip:backup-\(index)", headers: ["Authorization": "Bearer \(CrashRecoveryTests.adminKey)"],
                            json: CrashRecoveryTests.trip(delay: delay))
                        guard let put, put.status == 200 || put.status == 201, let rev = put.json?["rev"] as? Int else { continue }
                        let at = Date()
                        acknowledgements.withLock { $0[index].append((rev, at)) }
                    }
                }
            }
        }

        func stop() { stopped.store(true, ordering: .relaxed) }

        var total: Int { acknowledgements.withLock { $0.reduce(0) { $0 + $1.count } } }

        func acknowledgedCount(each least: Int) -> Bool { acknowledgements.withLock { $0.allSatisfy { $0.count >= least } } }

        /// Per client, the highest revision acknowledged before `moment`.
        func acknowledged(before moment: Date) -> [Int] {
            acknowledgements.withLock { $0.map { $0.filter { $0.at < moment }.map(\.rev).max() ?? 0 } }
        }
    }
}
