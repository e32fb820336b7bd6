import Foundation
import LivelineTestSupport
import Testing

/// `liveline serve` as a real child process: it prints its port, answers, and on SIGTERM
/// finishes and exits 0.
@Suite struct ServeProcessTests {
    @Test func serveOnPortZeroPrintsThePortAndStopsGracefullyOnSIGTERM() throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-serve-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let server = try ServeProcess(data: data)
        #expect(server.startText.contains("admin key for the /v1 API"))
        #expect(server.port > 0 && server.port != 8080)

        let health = try TestHTTPConnection(port: server.port).request("GET", "/healthz")
        #expect(health.status == 200)

        server.kill(SIGTERM)
        // The process has ended, and its listening socket with it.
        let output = server.remainingOutput()
        #expect(server.process.termination == .exited(0), "\(output)")
        #expect(output.contains("stopped"))
    }
}
