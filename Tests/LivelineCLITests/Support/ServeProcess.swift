import Foundation
import LivelineTestSupport
import Testing

/// `liveline serve` as a real child process on a free port, for tests that need a separate
/// process (signals, crashes).
final class ServeProcess {
    /// The `liveline` executable built next to the test bundle.
    static var executable: URL { built("liveline") }

    /// An executable of this package built next to the test bundle.
    static func built(_ name: String) -> URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent(name)
    }

    /// What every child gets: no access log, only the engine's errors logged, a plain PATH, and
    /// the test run's crash settings.
    static var baseEnvironment: [String: String] {
        var environment = ["LIVELINE_ACCESS_LOG": "off", "LIVELINE_LOG_LEVEL": "error", "PATH": "/usr/bin:/bin"]
        environment["SWIFT_BACKTRACE"] = ProcessInfo.processInfo.environment["SWIFT_BACKTRACE"]
        return environment
    }

    let process: ChildProcess
    let output: OutputCollector
    /// What the process wrote to standard error up to the ready line.
    private(set) var startText = ""
    private(set) var port = 0

    /// Starts `liveline serve --port 0` (or `port`, e.g. the port of the server it replaces) on
    /// 127.0.0.1 with `data` and `environment` (access log off), and waits for its ready line (its
    /// standard error is read on a thread of its own) unless `waiting` is false (then call
    /// ``waitUntilReady()``: servers started together). Its standard output (the JSON logs) goes
    /// to `standardOutput`.
    init(
        data: URL, environment: [String: String] = [:], port requested: Int = 0, standardOutput: ChildProcess.Stream = .null,
        waiting: Bool = true, executable: URL = ServeProcess.executable
    ) throws {
        try #require(FileManager.default.isExecutableFile(atPath: executable.path), "build it first: \(executable.path)")
        var environment = Self.baseEnvironment.merging(environment) { $1 }
        var standardOutput = standardOutput
        if case .null = standardOutput, TestLogs.directory != nil {
            // Nobody reads its log: it logs everything to the run's log folder for the scan.
            standardOutput = TestLogs.childOutput("serve")
            environment["LIVELINE_ACCESS_LOG"] = "stdout"
            environment["LIVELINE_LOG_LEVEL"] = "debug"
        }
        self.data = data
        self.environment = environment
        process = try ChildProcess(
            executable.path, ["serve", "--port", String(requested), "--host", "127.0.0.1", "--data", data.path],
            environment: environment, standardOutput: standardOutput, standardError: .pipe
        )
        output = OutputCollector(process.standardError!)
        if waiting { try waitUntilReady() }
    }

    private let data: URL
    private let environment: [String: String]

    /// Waits (at most 20 s) for the ready line and reads the port from it; fails the test when
    /// the process ended first, with what it wrote.
    func waitUntilReady() throws {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline, process.isRunning {
            let text = output.text
            if let end = text.range(of: "pushes go to"), text[end.upperBound...].contains("\n") {
                startText = text
                break
            }
            usleep(5000)
        }
        if startText.isEmpty { startText = output.text }
        let match = try #require(startText.firstMatch(of: /listening on http:\/\/127\.0\.0\.1:(\d+)/), "no port in: \(startText)")
        port = try #require(Int(match.1))
        let adminKey = environment["LIVELINE_ADMIN_KEY"] ?? (try? String(contentsOf: data.appendingPathComponent("admin-key"), encoding: .utf8))
        if let adminKey { TestLogs.recordServerSecrets(adminKey: adminKey.trimmingCharacters(in: .whitespacesAndNewlines), dataDirectory: data) }
    }

    /// Sends `signal` and waits for the process to end: at most `timeout` seconds, then it is
    /// killed and the test fails (a child that hangs fails its test, not the whole run).
    func kill(_ signal: Int32, timeout: TimeInterval = 30, sourceLocation: SourceLocation = #_sourceLocation) {
        process.send(signal)
        if process.wait(timeout: timeout) == nil {
            Issue.record("liveline serve did not end within \(Int(timeout)) s of signal \(signal)", sourceLocation: sourceLocation)
            process.send(SIGKILL)
            process.waitUntilExit()
        }
    }

    /// Everything written to standard error (after the process ended: all of it).
    func remainingOutput() -> String {
        let deadline = Date().addingTimeInterval(5)
        while !output.finished && Date() < deadline { usleep(5000) }
        return output.text
    }

    /// A child still running when its test is done gets SIGTERM, then SIGKILL after 10 s.
    deinit {
        process.terminate()
        if process.wait(timeout: 10) == nil { process.send(SIGKILL) }
    }
}
