import Foundation
import LivelineTestSupport
import Synchronization

/// `liveline serve` as a child process that a test kills with SIGKILL and starts again, each life
/// on the same data folder (and database) and the same port, so clients simply keep calling.
/// Each life's standard error goes to a file of its own in `folder` (read for the ready line).
final class CrashLoopServer: Sendable {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The `liveline` executable built next to the test bundle.
    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("liveline")
    }

    let data: URL
    let folder: URL
    let environment: [String: String]
    private struct Life {
        var process: ChildProcess?
        var port = 0
        var lives = 0
        /// The highest peak resident set size (`VmHWM`) of any life, in kB.
        var peakKilobytes = 0
        var startSeconds: [Double] = []
    }
    private let life = Mutex(Life())

    init(data: URL, folder: URL, environment: [String: String]) {
        self.data = data
        self.folder = folder
        var base = ["LIVELINE_ACCESS_LOG": "off", "LIVELINE_LOG_LEVEL": "error", "PATH": "/usr/bin:/bin"]
        base["SWIFT_BACKTRACE"] = ProcessInfo.processInfo.environment["SWIFT_BACKTRACE"]
        self.environment = base.merging(environment) { $1 }
    }

    var port: Int { life.withLock { $0.port } }
    var lives: Int { life.withLock { $0.lives } }
    var peakKilobytes: Int { life.withLock { $0.peakKilobytes } }
    /// How long each life took from spawn to its ready line.
    var startSeconds: [Double] { life.withLock { $0.startSeconds } }
    var pid: pid_t? { life.withLock { $0.process?.processIdentifier } }

    /// Starts a life (on the previous life's port, if there was one) and waits for its ready line.
    func start() throws {
        let (port, number) = life.withLock { ($0.port, $0.lives + 1) }
        let errors = folder.appendingPathComponent("serve-\(number).stderr")
        var environment = environment
        var standardOutput = ChildProcess.Stream.null
        if TestLogs.directory != nil {
            // The run's log scan reads every line a server wrote.
            standardOutput = TestLogs.childOutput("serve")
            environment["LIVELINE_ACCESS_LOG"] = "stdout"
            environment["LIVELINE_LOG_LEVEL"] = "debug"
        }
        let began = Date()
        // The port of a killed life may take a moment to be free again.
        var attempt = 0
        while true {
            attempt += 1
            let process = try ChildProcess(
                Self.executable.path, ["serve", "--port", String(port), "--host", "127.0.0.1", "--data", data.path],
                environment: environment, standardOutput: standardOutput, standardError: .file(errors.path)
            )
            let deadline = Date().addingTimeInterval(60)
            var text = ""
            while Date() < deadline, process.isRunning {
                text = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
                if let end = text.range(of: "pushes go to"), text[end.upperBound...].contains("\n") { break }
                usleep(5000)
            }
            text = (try? String(contentsOf: errors, encoding: .utf8)) ?? ""
            if let match = text.firstMatch(of: /listening on http:\/\/127\.0\.0\.1:(\d+)/), let bound = Int(match.1), process.isRunning {
                life.withLock {
                    $0.process = process
                    $0.port = bound
                    $0.lives = number
                    $0.startSeconds.append(Date().timeIntervalSince(began))
                }
                return
            }
            process.send(SIGKILL)
            _ = process.wait(timeout: 10)
            guard attempt < 20, text.contains("in use") || text.contains("bind") else {
                throw Failure(description: "liveline serve (life \(number)) did not start: \(text)")
            }
            usleep(250_000)
        }
    }

    /// Notes the running life's peak memory, kills it with SIGKILL and waits for its end.
    func kill() throws {
        guard let process = life.withLock({ $0.process }) else { return }
        notePeakMemory()
        process.send(SIGKILL)
        guard process.wait(timeout: 30) == .signalled(SIGKILL) else {
            throw Failure(description: "liveline serve did not die of SIGKILL: \(process.termination.map(\.description) ?? "still running")")
        }
        life.withLock { $0.process = nil }
    }

    /// Reads the running life's `VmHWM` (peak resident set size) into ``peakKilobytes``.
    func notePeakMemory() {
        guard let pid,
            let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kilobytes = Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        else { return }
        life.withLock { $0.peakKilobytes = max($0.peakKilobytes, kilobytes) }
    }

    /// Ends the running life with SIGTERM (SIGKILL after 10 s).
    func stop() {
        guard let process = life.withLock({ $0.process }) else { return }
        notePeakMemory()
        process.terminate()
        if process.wait(timeout: 10) == nil {
            process.send(SIGKILL)
            _ = process.wait(timeout: 10)
        }
        life.withLock { $0.process = nil }
    }

    deinit { stop() }
}
