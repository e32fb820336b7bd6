import Foundation
import LivelineTestSupport
import Testing

/// `liveline demo` as a person sees it: the built `liveline` plays its stories as a child process
/// (no faults: every push its in-process APNs sandbox gets is accepted), and once it has deleted a
/// broadcast channel (APNs's 204, channel management) `Browser/demo_overview.py` opens its
/// one-time link in Debian's headless chromium and reads the overview's "Pushes of the last
/// hour": every push accepted, none refused, the deletion on a line of its own. Fails, never
/// skips, without chromium, chromium-driver or the test virtualenv.
@Suite struct DemoOverviewBrowserTests {
    static let script = DashboardBrowserTests.root.appendingPathComponent("Tests/LivelineDashboardTests/Browser/demo_overview.py")
    /// The `liveline` built beside the tests.
    static var executable: URL {
        URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("liveline")
    }

    /// What the script read, as numbers.
    struct Overview {
        var accepted: Int
        var refused: Int
        var unanswered: Int
        var channelsDeleted: Int
        var text: String
    }

    static func overview(_ output: String) throws -> Overview {
        let line = try #require(output.split(separator: "\n").last { $0.hasPrefix("{") }, "demo_overview.py printed no result: \(output)")
        let read = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: String], "\(line)")
        let summary = read["summary"] ?? ""
        let pushes = try #require(
            summary.firstMatch(of: /(\d+) pushes in the last hour: (\d+) accepted, (\d+) refused, (\d+) without an answer/), "\(summary)")
        let deleted = (read["channels"] ?? "").firstMatch(of: /not counted as pushes: (\d+) accepted/).map { Int($0.1)! } ?? 0
        return Overview(accepted: Int(pushes.2)!, refused: Int(pushes.3)!, unanswered: Int(pushes.4)!, channelsDeleted: deleted, text: String(line))
    }

    @Test func afterADemoWithoutFaultsTheOverviewShowsNoRefusedPushAndTheDeletedChannelApart() async throws {
        let python = try DashboardBrowserTests.requireTools()
        try #require(FileManager.default.isExecutableFile(atPath: Self.executable.path), "build liveline first: \(Self.executable.path)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-demo-overview-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let narration = folder.appendingPathComponent("demo.err").path
        let data = folder.appendingPathComponent("data")
        var environment = ["LIVELINE_ACCESS_LOG": "off", "LIVELINE_LOG_LEVEL": "error", "PATH": "/usr/bin:/bin"]
        environment["SWIFT_BACKTRACE"] = ProcessInfo.processInfo.environment["SWIFT_BACKTRACE"]
        let demo = try ChildProcess(
            Self.executable.path, ["demo", "--port", "0", "--data", data.path], environment: environment, standardError: .file(narration))
        defer {
            if demo.isRunning {
                demo.send(SIGKILL)
                _ = demo.waitUntilExit()
            }
        }
        let printed: @Sendable () -> String = { (try? String(contentsOfFile: narration, encoding: .utf8)) ?? "" }

        // Its one-time link, and the shopping trip's broadcast channel deleted after the trip
        // (`/metrics`, with the admin key the demo keeps in its data folder).
        let link = try await offThePool { () -> (port: Int, path: String)? in
            var link: (port: Int, path: String)?
            _ = eventuallyBlocking(timeout: 60) {
                guard demo.isRunning,
                    let match = printed().firstMatch(of: /dashboard:  http:\/\/127\.0\.0\.1:(\d+)(\/dashboard\/sign-in\?once=[A-Za-z0-9_-]+)/)
                else { return !demo.isRunning }
                link = (Int(match.1)!, String(match.2))
                return true
            }
            return link
        }
        let demoLink = try #require(link, "the demo printed no dashboard link: \(printed())")
        let deleted = try await offThePool { () -> Bool in
            eventuallyBlocking(timeout: 120) {
                guard demo.isRunning, let key = try? String(contentsOf: data.appendingPathComponent("admin-key"), encoding: .utf8) else {
                    return !demo.isRunning
                }
                usleep(250_000)
                let metrics = try? TestHTTPConnection(port: demoLink.port).request(
                    "GET", "/metrics", headers: ["Authorization": "Bearer \(key.trimmingCharacters(in: .whitespacesAndNewlines))"])
                return metrics?.text.contains(#"operation="delete",reason="",status="204"}"#) == true
            } && demo.isRunning
        }
        try #require(deleted, "the demo deleted no broadcast channel within 120 s: \(printed().suffix(3000))")

        let artifacts = DashboardBrowserTests.artifacts
        try FileManager.default.createDirectory(at: artifacts, withIntermediateDirectories: true)
        let (script, url) = (Self.script.path, "http://127.0.0.1:\(demoLink.port)\(demoLink.path)")
        let run = try await offThePool { try ChildProcess.run(python, [script, url, artifacts.path], timeout: 90) }
        let output = String(decoding: run.output, as: UTF8.self)
        #expect(run.termination == .exited(0), "demo_overview.py \(run.termination):\n\(output)\n\(String(decoding: run.errors, as: UTF8.self))")
        let overview = try Self.overview(output)
        #expect(overview.refused == 0, "a healthy demo shows no refused push: \(overview.text)")
        #expect(overview.unanswered == 0, "\(overview.text)")
        #expect(overview.accepted > 0, "\(overview.text)")
        #expect(overview.channelsDeleted >= 1, "the deleted channel is counted apart from the pushes: \(overview.text)")

        // The demo ends cleanly, every phone showing the server's truth.
        demo.send(SIGINT)
        let ended = try await offThePool { demo.wait(timeout: 60) }
        #expect(ended == .exited(0), "\(printed().suffix(2000))")
    }
}
