import Foundation
import LivelineStore
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// The PostgreSQL server the tests use: `LIVELINE_TEST_DATABASE_URL` when it is set (what
/// `scripts/test.sh` starts), else a throw-away cluster this process starts on first use (initdb
/// + pg_ctl in a temporary folder, on a free port; as the unprivileged `postgres` user when run
/// as root) and stops when it exits. Each test gets a schema of its own (``freshDatabase()``).
///
/// The cluster requires a password over TCP (scram-sha-256), so every test connects the way a
/// deployment does. docs/testing.md.
public enum TestPostgres {
    /// The role the tests connect as, with its password.
    public static let user = "liveline"
    public static let password = "test-password-9f2c"

    /// The server's URL (with the password), starting a cluster if need be.
    public static func url() throws -> String {
        if let url = ProcessInfo.processInfo.environment["LIVELINE_TEST_DATABASE_URL"], !url.isEmpty { return url }
        return try started.withLock { cluster in
            if let cluster { return cluster.url }
            let new = try Cluster.start()
            cluster = new
            atexit { TestPostgres.stopAtExit() }
            return new.url
        }
    }

    /// A schema of its own for one test, and the closure that drops it.
    public static func freshSchema() throws -> (schema: String, drop: @Sendable () -> Void) {
        let url = try url()
        let schema = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let admin = try PostgresDatabase(settings: PostgresSettings(url: url), poolSize: 1)
        try admin.write { try $0.executeScript("CREATE SCHEMA \(schema)") }
        return (schema, { _ = try? admin.write { try $0.executeScript("DROP SCHEMA \(schema) CASCADE") } })
    }

    /// A database of its own for one test: a new schema (dropped by the returned closure) and a
    /// ``PostgresDatabase`` whose connections use only it.
    public static func freshDatabase(poolSize: Int = 4) throws -> (database: PostgresDatabase, drop: @Sendable () -> Void) {
        let (schema, drop) = try freshSchema()
        do {
            return (try PostgresDatabase(settings: PostgresSettings(url: url(), searchPath: schema), poolSize: poolSize), drop)
        } catch {
            drop()
            throw error
        }
    }

    /// The URL of a database of its own for one test (its schema named in `options`), for a
    /// server configured by URL or started in another process; the closure drops it.
    public static func freshURL() throws -> (url: String, drop: @Sendable () -> Void) {
        let (schema, drop) = try freshSchema()
        let url = try url()
        return (url + (url.contains("?") ? "&" : "?") + "options=-csearch_path%3D" + schema, drop)
    }

    /// A cluster of its own, started inside `namespace` and listening on its inner address (the
    /// network fault tests: the path to it runs over the namespace's veth pair), taking
    /// password logins from the test process's end of the pair; its log (connections logged) is
    /// `log`. The closure stops it and deletes its folder.
    public static func startCluster(in namespace: NetworkNamespace) throws -> (url: String, log: URL, stop: @Sendable () -> Void) {
        let cluster = try Cluster.start(
            listenAddress: namespace.innerAddress, allowing: namespace.hostAddress, prefix: ["/usr/sbin/ip", "netns", "exec", namespace.name])
        return (cluster.url, cluster.folder.appendingPathComponent("data/log.txt"), { cluster.stop() })
    }

    private static let started = Mutex<Cluster?>(nil)

    private static func stopAtExit() {
        started.withLock { cluster in
            cluster?.stop()
            cluster = nil
        }
    }

    /// A cluster in a temporary folder.
    struct Cluster: Sendable {
        let folder: URL
        let binaries: String
        let port: Int
        let asPostgresUser: Bool
        var listenAddress = "127.0.0.1"
        /// Another client address allowed in (`pg_hba.conf`), besides the loopback ones.
        var allowing: String?
        /// What the server is started through (`ip netns exec NAME`).
        var prefix: [String] = []

        var url: String { "postgresql://\(TestPostgres.user):\(TestPostgres.password)@\(listenAddress):\(port)/postgres" }
        private var data: String { folder.appendingPathComponent("data").path }
        private var socketFolder: String { folder.appendingPathComponent("socket").path }

        static func start(listenAddress: String = "127.0.0.1", allowing: String? = nil, prefix: [String] = []) throws -> Cluster {
            guard let binaries = binDirectory() else {
                throw Failure("PostgreSQL's initdb was not found (install postgresql; scripts/install-deps.sh does)")
            }
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-pg-\(UUID().uuidString)")
            var cluster = Cluster(folder: folder, binaries: binaries, port: try freePort(), asPostgresUser: getuid() == 0)
            cluster.listenAddress = listenAddress
            cluster.allowing = allowing
            cluster.prefix = prefix
            do {
                try cluster.create()
            } catch {
                cluster.stop()
                throw error
            }
            return cluster
        }

        private func create() throws {
            let manager = FileManager.default
            try manager.createDirectory(atPath: data, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try manager.createDirectory(atPath: socketFolder, withIntermediateDirectories: true)
            try manager.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.path)
            if asPostgresUser {
                for path in [data, socketFolder] { try run("/bin/chown", ["postgres:postgres", path]) }
            }
            let passwordFile = folder.appendingPathComponent("password").path
            try Data(TestPostgres.password.utf8).write(to: URL(fileURLWithPath: passwordFile))
            if asPostgresUser { try run("/bin/chown", ["postgres:postgres", passwordFile]) }
            try runAsOwner(
                "\(binaries)/initdb",
                [
                    "-D", data, "-U", TestPostgres.user, "--pwfile=\(passwordFile)", "--auth-local=trust", "--auth-host=scram-sha-256",
                    "--no-sync", "-E", "UTF8", "--locale=C.UTF-8",
                ])
            if let allowing {
                let hba = URL(fileURLWithPath: "\(data)/pg_hba.conf")
                let rules = try String(contentsOf: hba, encoding: .utf8) + "host all all \(allowing)/32 scram-sha-256\n"
                try Data(rules.utf8).write(to: hba)
            }
            try runAsOwner(
                "\(binaries)/pg_ctl",
                [
                    "-D", data, "-l", "\(data)/log.txt", "-w", "-t", "60", "-o",
                    // Every server and simulated-iPhone test runs its own server (a pool of 10 and its
                    // listener) and Swift Testing runs them all at once: 400 ran out once the
                    // meal-planning suites joined the PostgreSQL pass.
                    "-p \(port) -k \(socketFolder) -c listen_addresses=\(listenAddress) -c max_connections=1000 -c fsync=off "
                        + "-c synchronous_commit=off -c full_page_writes=off" + (prefix.isEmpty ? "" : " -c log_connections=on"),
                    "start",
                ],
                through: prefix)
        }

        func stop() {
            _ = try? runAsOwner("\(binaries)/pg_ctl", ["-D", data, "-m", "immediate", "stop"])
            try? FileManager.default.removeItem(at: folder)
        }

        private func runAsOwner(_ program: String, _ arguments: [String], through prefix: [String] = []) throws {
            let command = asPostgresUser ? ["/usr/sbin/runuser", "-u", "postgres", "--", program] + arguments : [program] + arguments
            let full = prefix + command
            try run(full[0], Array(full.dropFirst()))
        }

        private func run(_ program: String, _ arguments: [String]) throws {
            // Output to a file, not a pipe: the server pg_ctl starts would hold a pipe open for good.
            let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-pg-output-\(UUID().uuidString)").path
            defer { try? FileManager.default.removeItem(atPath: outputPath) }
            let child = try ChildProcess(program, arguments, standardOutput: .null, standardError: .file(outputPath))
            guard let termination = child.wait(timeout: 120) else {
                child.send(SIGKILL)
                throw Failure("\(program) \(arguments.first ?? "") did not finish in 120 s")
            }
            let text = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
            guard termination == .exited(0) else {
                throw Failure("\(program) \(arguments.first ?? "") failed (\(termination)): \(text.suffix(800))")
            }
        }

        /// The server's binaries: the newest `/usr/lib/postgresql/*/bin` (Debian's layout).
        private static func binDirectory() -> String? {
            let manager = FileManager.default
            let versions = (try? manager.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
            for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
                let bin = "/usr/lib/postgresql/\(version)/bin"
                if manager.isExecutableFile(atPath: "\(bin)/initdb") { return bin }
            }
            return nil
        }

        private static func freePort() throws -> Int {
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            guard descriptor >= 0 else { throw Failure("no socket for a free port") }
            defer { close(descriptor) }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            address.sin_port = 0
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
                }
            }
            guard bound else { throw Failure("could not bind a free port") }
            return Int(UInt16(bigEndian: address.sin_port))
        }
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }
}
