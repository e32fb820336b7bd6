import Foundation
import LivelineCrypto
import LivelinePush
import LivelinePushWire
import LivelineSandbox
import LivelineTestSupport

/// `liveline-bench push`: N Live Activity pushes to the APNs sandbox on one connection, sent by
/// Liveline's `APNSClient`, by aioapns (an independent Python client) and by h2load (the ceiling:
/// nghttp2's load generator, which does no APNs work at all), against the same sandbox in the
/// same run.
public enum PushBenchmark {
    public struct Figures: Sendable {
        public var liveline: Double
        public var aioapns: Double?
        public var h2load: Double?
    }

    public static func run(count: Int, window: Int, repositoryRoot: URL, output: @Sendable (String) -> Void) async throws -> Figures {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-bench-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = SandboxConfiguration(folder: folder)
        configuration.acceptAnyToken = true
        let sandbox = try APNSSandbox.start(configuration)
        defer { sandbox.stop() }
        let token = String(repeating: "ab", count: 32)
        let payload = Array(#"{"aps":{"timestamp":1767574000,"event":"update","content-state":{"rev":1}}}"#.utf8)
        output("sandbox on 127.0.0.1:\(sandbox.devicePort); \(count) Live Activity pushes each, one connection")

        // Liveline: one connection, `window` requests in flight.
        let client = try APNSClient(
            configuration: APNSClientConfiguration(
                credentials: APNSCredentials(keyID: sandbox.keyID, teamID: sandbox.teamID, key: sandbox.signingKey),
                environment: .local(devicePort: sandbox.devicePort, managementPort: sandbox.managementPort, caFile: sandbox.certificateFile.path),
                maxConnectionsPerEndpoint: 1
            ))
        defer { client.shutdown() }
        _ = await client.send(.liveActivity(deviceToken: token, bundleID: sandbox.bundleID, payload: payload))
        let started = ContinuousClock.now
        let delivered = await sendAll(client: client, count: count, window: window) {
            .liveActivity(deviceToken: token, bundleID: sandbox.bundleID, payload: payload)
        }
        let livelineRate = Double(count) / seconds(ContinuousClock.now - started)
        output(
            String(
                format: "liveline APNSClient: %.0f pushes/s (%d of %d delivered, %d connection)", livelineRate, delivered, count,
                client.connectionCounts.device))

        let aioRate = try aioapnsRate(sandbox: sandbox, token: token, count: count, window: window, repositoryRoot: repositoryRoot, output: output)
        let h2Rate = try h2loadRate(
            sandbox: sandbox, token: token, jwt: try client.tokens.token().compact, payload: payload, folder: folder, count: count, window: window,
            output: output)
        if let aioRate { output(String(format: "liveline / aioapns = %.1f× (goal ≥ 10×)", livelineRate / aioRate)) }
        if let h2Rate { output(String(format: "liveline / h2load  = %.2f× (goal ≥ 0.3×)", livelineRate / h2Rate)) }
        return Figures(liveline: livelineRate, aioapns: aioRate, h2load: h2Rate)
    }

    /// aioapns (Python, from the test virtualenv) sending the same push to the sandbox; nil when
    /// it is not installed or gave no figure.
    static func aioapnsRate(
        sandbox: APNSSandbox, token: String, count: Int, window: Int, repositoryRoot: URL, output: @Sendable (String) -> Void
    ) throws -> Double? {
        let python = repositoryRoot.appendingPathComponent(".venv/bin/python").path
        if FileManager.default.isExecutableFile(atPath: python) {
            let aioCount = min(count, 20_000)
            let text = try runProcess(
                python,
                [
                    repositoryRoot.appendingPathComponent("scripts/peers/aioapns_bench.py").path,
                    "--port", String(sandbox.devicePort), "--ca-file", sandbox.certificateFile.path, "--key-file", sandbox.keyFile.path,
                    "--key-id", sandbox.keyID, "--team-id", sandbox.teamID, "--topic", sandbox.bundleID + ".push-type.liveactivity",
                    "--token", token, "-n", String(aioCount), "--concurrency", String(window),
                ])
            if let data = text.split(separator: "\n").last.map({ Data($0.utf8) }),
                let json = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let rate = json["rate"] as? Double
            {
                output(String(format: "aioapns (Python):    %.0f pushes/s (%@ of %d accepted)", rate, "\(json["ok"] ?? "?")", aioCount))
                return rate
            } else {
                output("aioapns: no result: \(text.suffix(300))")
            }
        } else {
            output("aioapns: skipped — run scripts/test-venv.sh to create .venv")
        }
        return nil
    }

    /// h2load sending the same request, as fast as nghttp2 can (the ceiling); nil when it is not
    /// installed or gave no figure.
    static func h2loadRate(
        sandbox: APNSSandbox, token: String, jwt: String, payload: [UInt8], folder: URL, count: Int, window: Int,
        output: @Sendable (String) -> Void
    ) throws -> Double? {
        let payloadFile = folder.appendingPathComponent("payload.json")
        try Data(payload).write(to: payloadFile)
        if FileManager.default.isExecutableFile(atPath: "/usr/bin/h2load") {
            let text = try runProcess(
                "/usr/bin/h2load",
                [
                    "-n", String(count), "-c", "1", "-m", String(window), "-d", payloadFile.path,
                    "-H", "authorization: bearer \(jwt)", "-H", "apns-topic: \(sandbox.bundleID).push-type.liveactivity",
                    "-H", "apns-push-type: liveactivity", "-H", "apns-priority: 10",
                    "https://127.0.0.1:\(sandbox.devicePort)/3/device/\(token)",
                ])
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("finished in") }),
                let rateText = line.split(separator: ",").dropFirst().first?.trimmingCharacters(in: .whitespaces).split(separator: " ").first,
                let rate = Double(rateText)
            {
                let codes = text.split(separator: "\n").first { $0.hasPrefix("status codes") } ?? ""
                output(String(format: "h2load (ceiling):     %.0f requests/s (%@)", rate, String(codes)))
                return rate
            } else {
                output("h2load: no result: \(text.suffix(300))")
            }
        } else {
            output("h2load: skipped — install nghttp2-client")
        }
        return nil
    }

    /// Sends `count` pushes keeping `window` in flight; returns how many were delivered.
    static func sendAll(client: APNSClient, count: Int, window: Int, make: @escaping @Sendable () -> APNSNotification) async -> Int {
        await withCheckedContinuation { continuation in
            let state = SendState(count: count, continuation: continuation)
            @Sendable func next() {
                guard state.startOne() else { return }
                client.send(make()) { result in
                    if state.finishOne(delivered: result.outcome == .delivered) { return }
                    next()
                }
            }
            for _ in 0..<min(window, count) { next() }
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func runProcess(_ path: String, _ arguments: [String]) throws -> String {
        // ChildProcess, not Foundation's Process (see its documentation); standard error after the output.
        let run = try ChildProcess.run(path, arguments, timeout: 600)
        return String(decoding: run.output + run.errors, as: UTF8.self)
    }
}
