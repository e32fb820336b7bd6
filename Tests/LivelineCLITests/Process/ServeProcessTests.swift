import Foundation
import LivelineTestSupport
import Testing

/// `liveline serve` as a real child process: it prints its port, answers, and on SIGTERM
/// finishes and exits 0.
@Suite struct ServeProcessTests {
    @Test func serveOnPortZeroPrintsThePortAndStopsGracefullyOnSIGTERM() throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-serve-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let logFile = data.appendingPathExtension("log")
        defer { try? FileManager.default.removeItem(at: logFile) }
        let server = try ServeProcess(data: data, environment: ["LIVELINE_LOG_LEVEL": "info"], standardOutput: .file(logFile.path))
        #expect(server.startText.contains("admin key for the /v1 API"))
        #expect(server.port > 0 && server.port != 8080)

        let health = try TestHTTPConnection(port: server.port).request("GET", "/healthz")
        #expect(health.status == 200)

        server.kill(SIGTERM)
        // The process has ended, and its listening socket with it.
        let output = server.remainingOutput()
        #expect(server.process.termination == .exited(0), "\(output)")
        #expect(output.contains("stopped"))

        // The log tells the same: the migrations of a new database, the start, the stop.
        let events = try String(contentsOf: logFile, encoding: .utf8).split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        let names = events.compactMap { $0["event"] as? String }
        let migrations = events.filter { $0["event"] as? String == "migrationApplied" }.compactMap { $0["migration.name"] as? String }
        #expect(migrations.count >= 5 && migrations.contains { $0.hasPrefix("shopping") }, "\(migrations)")
        #expect(events.first { $0["event"] as? String == "serverStarted" }?["http.port"] as? Int == server.port, "\(names)")
        let started = try #require(names.firstIndex(of: "serverStarted"), "\(names)")
        let stopping = try #require(names.firstIndex(of: "serverStopping"), "\(names)")
        #expect(started < stopping && names.last == "serverStopped", "\(names)")
    }
}
