import Foundation
import LivelineTestSupport
import Testing

/// `liveline serve` as a real child process: it prints its port, answers, and on SIGTERM
/// finishes and exits 0.
@Suite struct ServeProcessTests {
    /// The `liveline` executable built next to the test bundle.
    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("liveline")
    }

    @Test func serveOnPortZeroPrintsThePortAndStopsGracefullyOnSIGTERM() throws {
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable.path), "build liveline first: \(Self.executable.path)")
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-serve-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }
        let process = Process()
        process.executableURL = Self.executable
        process.arguments = ["serve", "--port", "0", "--host", "127.0.0.1", "--data", data.path]
        process.environment = ["LIVELINE_ACCESS_LOG": "off", "PATH": "/usr/bin:/bin"]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { process.terminate() } }

        var text = ""
        let deadline = Date().addingTimeInterval(20)
        while !text.contains("listening on"), Date() < deadline {
            text += String(decoding: errors.fileHandleForReading.availableData, as: UTF8.self)
        }
        while !text.hasSuffix("\n"), Date() < deadline {
            text += String(decoding: errors.fileHandleForReading.availableData, as: UTF8.self)
        }
        let match = try #require(text.firstMatch(of: /listening on http:\/\/127\.0\.0\.1:(\d+)/), "no port in: \(text)")
        #expect(text.contains("admin key for the /v1 API"))
        let port = try #require(Int(match.1))
        #expect(port > 0 && port != 8080)

        let health = try TestHTTPConnection(port: port).request("GET", "/healthz")
        #expect(health.status == 200)

        process.terminate()  // SIGTERM
        process.waitUntilExit()
        #expect(process.terminationReason == .exit)
        #expect(process.terminationStatus == 0)
        let rest = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(rest.contains("stopped"))
        #expect(throws: TestHTTPConnection.Failure.self) { try TestHTTPConnection(port: port).request("GET", "/healthz") }
    }
}
