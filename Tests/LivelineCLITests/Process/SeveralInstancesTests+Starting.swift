import Foundation
import LivelineStore
import LivelineTestSupport
import LivelineTransit
import Testing

/// Instances that do the same work at once: starting together on a database with the schema and
/// no feed, and loading a feed that changed under them (`docs/features/transit.md`, "The feed").
extension SeveralInstancesTests {
    /// Three `liveline serve` on one PostgreSQL schema, each logging its events to a file.
    final class Trio {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-trio-\(UUID().uuidString)")
        let url: String
        let drop: @Sendable () -> Void
        /// The bearer token `liveline users add` printed.
        let bearer: String
        var servers: [ServeProcess] = []

        /// Makes the schema as an operator does (`liveline users add` against the database),
        /// then starts three servers at once with `environment` and waits for each.
        init(environment extra: [String: String] = [:]) throws {
            (url, drop) = try TestPostgres.freshURL()
            let environment = ServeProcess.baseEnvironment.merging(["LIVELINE_DATABASE_URL": url]) { $1 }
            let added = try ChildProcess.run(
                ServeProcess.executable.path, ["users", "add", "--household", "Fisch", "--name", "Dennis"], environment: environment,
                timeout: 60)
            let printed = String(decoding: added.output, as: UTF8.self)
            try #require(added.termination == .exited(0), "\(printed) \(String(decoding: added.errors, as: UTF8.self))")
            bearer = try #require(printed.firstMatch(of: /"token":"(ll_[^"]+)"/).map { String($0.1) })
            let serving = environment.merging(
                ["LIVELINE_ADMIN_KEY": SeveralInstancesTests.adminKey, "LIVELINE_LOG_LEVEL": "info", "LIVELINE_DATABASE_POOL": "3"]
            ) { $1 }.merging(extra) { $1 }
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for index in 0..<3 {
                servers.append(
                    try ServeProcess(
                        data: folder.appendingPathComponent("data-\(index)"), environment: serving, standardOutput: .file(log(index).path),
                        waiting: false))
            }
            for server in servers { try server.waitUntilReady() }
        }

        func log(_ index: Int) -> URL { folder.appendingPathComponent("serve-\(index).log") }

        /// The events instance `index` logged so far, each with its feed's fingerprint (if any).
        func events(_ index: Int) -> [(event: String, fingerprint: String?)] {
            let text = (try? String(contentsOf: log(index), encoding: .utf8)) ?? ""
            return text.split(separator: "\n").compactMap { line in
                line.firstMatch(of: /"event":"([^"]+)"/).map { (String($0.1), line.firstMatch(of: /"fingerprint":"([^"]+)"/).map { String($0.1) }) }
            }
        }

        /// How many of `events` the three logged, each (of feed `fingerprint` only, when given).
        func count(_ events: Set<String>, fingerprint: String? = nil) -> [Int] {
            (0..<3).map { index in
                self.events(index).filter { events.contains($0.event) && (fingerprint == nil || $0.fingerprint == fingerprint) }.count
            }
        }

        deinit {
            servers.removeAll()
            drop()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    @Test func threeInstancesStartingTogetherOnANewSchemaAllServeThirtyTimes() throws {
        for round in 1...30 {
            let trio = try Trio()
            for (index, server) in trio.servers.enumerated() {
                let health = try TestHTTPConnection(port: server.port).request("GET", "/healthz")
                #expect(health.status == 200, "round \(round), instance \(index): \(health.text)")
            }
            // One of them loaded the demo feed, the others found it current (once their logs are written).
            _ = eventuallyBlocking { trio.count(["transit.feedLoaded", "transit.feedKept"]).reduce(0, +) >= 3 }
            let loaded = trio.count(["transit.feedLoaded"]).reduce(0, +)
            let kept = trio.count(["transit.feedKept"]).reduce(0, +)
            #expect(loaded == 1 && kept == 2, "round \(round): \(loaded) loaded, \(kept) kept")
        }
    }

    @Test func aFeedChangingUnderThreeRunningInstancesIsLoadedOnceEachTime() async throws {
        let feedFolder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-trio-feed-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: feedFolder) }
        let path = try DemoFeed.write(to: feedFolder)
        let stops = path.appendingPathComponent("stops.txt")
        let original = try String(contentsOf: stops, encoding: .utf8)
        let trio = try Trio(environment: ["LIVELINE_GTFS_PATH": path.path, "LIVELINE_GTFS_CHECK_INTERVAL_S": "1"])
        for round in 1...30 {
            // A stop renamed: other files, another fingerprint. Written beside the folder and
            // moved in, as a deploy would: the watcher never sees half a file.
            let renamed = original.replacingOccurrences(of: "Mannheim Hauptbahnhof", with: "Mannheim Hauptbahnhof \(round)")
            let staged = feedFolder.deletingLastPathComponent().appendingPathComponent("\(feedFolder.lastPathComponent)-stops.txt")
            try Data(renamed.utf8).write(to: staged)
            try #require(rename(staged.path, stops.path) == 0)
            let fingerprint = try GTFSReader.readWithFingerprint(path).fingerprint
            let seen = await eventually(timeout: 20) {
                trio.count(["transit.feedReloaded", "transit.feedKept"], fingerprint: fingerprint).allSatisfy { $0 >= 1 }
            }
            #expect(
                seen,
                "round \(round): each instance has the change: \(trio.count(["transit.feedReloaded", "transit.feedKept"], fingerprint: fingerprint))")
            let loads = trio.count(["transit.feedReloaded"], fingerprint: fingerprint).reduce(0, +)
            #expect(loads == 1, "round \(round): the change is loaded once, by one instance (\(loads) loads)")
        }
        #expect(trio.count(["transit.feedRefused"]) == [0, 0, 0], "no instance failed to load a change")
        for (index, server) in trio.servers.enumerated() {
            #expect(server.process.isRunning, "instance \(index) runs")
            let stopsFound = try TestHTTPConnection(port: server.port).request(
                "GET", "/api/transit/stops?query=Hauptbahnhof%2030", headers: ["Authorization": "Bearer \(trio.bearer)"])
            #expect(stopsFound.status == 200 && stopsFound.text.contains("Mannheim Hauptbahnhof 30"), "instance \(index): \(stopsFound.text)")
        }
    }
}
