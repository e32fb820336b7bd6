import Foundation
import LivelineCrypto
import LivelinePush
import LivelinePushWire
import LivelineServer
import LivelineStore
import LivelineTestSupport

/// `liveline-bench million` (`scripts/bench-million.sh`): one change to a very large number of
/// `la-update` tokens on a `liveline serve` of its own process, pushed to a `liveline sandbox`
/// in a third, beside the same pushes sent straight through `APNSClient` from this process (the
/// raw client: no database, no rendering, no recording); and the server's peak resident memory.
public enum MillionBenchmark {
    /// The raw client's second way: at most this many pushes waiting for their answer, as many
    /// as the engine's pages in flight hold (4 pages of 2,000).
    static let rawWindow = 8_000

    /// The tokens of the run, the same in the seed and the raw client's round (not
    /// `String(format: "%064x")`, which takes 32 bits of the number on Linux).
    static func token(_ index: Int) -> String {
        let hex = String(tokenBase + index, radix: 16)
        return String(repeating: "0", count: 64 - hex.count) + hex
    }
    static let tokenBase = 0x5eed_0000_0000

    /// Registers `count` `la-update` tokens of `key` (one phone each, one household) in the
    /// database of `folder`, before the server starts: the first through the registry, the
    /// others as copies of its row with their own device, slot and token (one statement: the
    /// registry takes minutes for a million).
    public static func seed(folder: URL, key: String, count: Int, output: @Sendable (String) -> Void) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = try Store.openSQLite(folder: folder)
        let started = ContinuousClock.now
        let user = try store.accounts.createUser(
            household: "Bench", name: "B", avatarTint: "azure", emoji: "🚆", locale: "de", tokenHash: SHA256.hex("bench-million"), now: Date())
        let registration = TokenRegistration(
            householdID: user.householdID, userID: user.id, deviceID: "phone-0", kind: .update, environment: .sandbox, token: token(0),
            attributesType: "TripLiveActivityAttributes", contextKey: key)
        _ = try store.tokens.register(registration, now: Date())
        let columns = """
            household_id, user_id, device_id, kind, environment, attributes_type, context_key, slot, token, status,
            frequent_pushes_enabled, first_registered_at, last_registered_at, environment_source, contract_fingerprint, widget_kinds,
            activity_id, widget_push_at
            """
        try store.write { transaction in
            try transaction.execute(
                """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < $1)
                INSERT INTO push_tokens (\(columns))
                SELECT household_id, user_id, 'phone-' || i, kind, environment, attributes_type, context_key,
                    replace(slot, 'device:phone-0|', 'device:phone-' || i || '|'), printf('%064x', $2 + i), status,
                    frequent_pushes_enabled, first_registered_at, last_registered_at, environment_source, contract_fingerprint, widget_kinds,
                    activity_id, widget_push_at
                FROM push_tokens, n WHERE push_tokens.token = $3
                """,
                [SQLValue(count - 1), SQLValue(tokenBase), .text(token(0))])
        }
        output(String(format: "%d tokens of %@ seeded in %.1f s", count, key, EngineBenchmark.seconds(ContinuousClock.now - started)))
    }

    /// The rounds: a `PUT` of `key` on the server at `port` (process `pid`), timed until the
    /// sandbox (control port `control`) counted `tokens` more accepted pushes; then the same pushes
    /// through `APNSClient`, configured as the server's from this process's `LIVELINE_APNS_*`
    /// environment. Prints each round, the server's peak memory and the ratio.
    public static func run(
        port: Int, pid: Int, control: Int, adminKey: String, key: String, tokens: Int, rounds: Int, sandboxPID: Int? = nil,
        output: @Sendable (String) -> Void
    ) throws {
        // The sandbox's CPU time in each round (0 without its pid): whether the peer both sides
        // send to took more in one side's round than in the other's.
        let sandboxCPU = { sandboxPID.map { cpuSeconds("/proc/\($0)/stat") } ?? 0 }
        let apns = try APNSConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
        var clientConfiguration = APNSClientConfiguration(credentials: try apns.credentials(), environment: apns.apnsEnvironment)
        clientConfiguration.requestDeadline = 60
        let client = try APNSClient(configuration: clientConfiguration)
        defer { client.shutdown() }
        output("\(tokens) la-update tokens; server pid \(pid), RSS before the first round \(megabytes(pid, "VmRSS")) MB")
        output("round   engine s   raw client s   engine/raw   server peak MB   server CPU s   raw client CPU s")
        var engineTimes: [Double] = []
        var rawTimes: [Double] = []
        for round in 1...rounds {
            let before = try acceptedCount(control: control)
            let serverCPU = cpuSeconds("/proc/\(pid)/stat")
            let sandboxAtStart = sandboxCPU()
            let started = ContinuousClock.now
            // A connection of its own each round: the server closes one left idle for the raw client's rounds.
            let response = try TestHTTPConnection(port: port, timeout: 300).request(
                "PUT", "/v1/contexts/\(key)", headers: ["Authorization": "Bearer \(adminKey)"], json: EngineBenchmark.trip(delay: round))
            guard response.status == 200 || response.status == 201 else {
                throw EngineBenchmarkError("PUT answered \(response.status): \(response.text)")
            }
            try waitForAccepted(before + tokens, control: control, round: round)
            let engine = EngineBenchmark.seconds(ContinuousClock.now - started)
            let serverUsed = cpuSeconds("/proc/\(pid)/stat") - serverCPU
            let sandboxInEngineRound = sandboxCPU() - sandboxAtStart
            let payload = try lastPayload(control: control, token: token(tokens - 1))
            let ownCPU = cpuSeconds("/proc/self/stat")
            let sandboxBeforeRaw = sandboxCPU()
            let allAtOnce = try rawRound(client: client, tokens: tokens, payload: payload, bundleID: apns.bundleID, control: control, window: nil)
            let rawUsed = cpuSeconds("/proc/self/stat") - ownCPU
            let sandboxInRawRound = sandboxCPU() - sandboxBeforeRaw
            let windowed = try rawRound(
                client: client, tokens: tokens, payload: payload, bundleID: apns.bundleID, control: control, window: rawWindow)
            // The faster of the two ways is the raw client's figure.
            let raw = min(allAtOnce, windowed)
            output(String(format: "      raw client: all at once %.2f s, at most %d waiting %.2f s", allAtOnce, rawWindow, windowed))
            if sandboxPID != nil {
                output(
                    String(
                        format: "      sandbox CPU: engine's round %.2f s, raw client's (all at once) %.2f s", sandboxInEngineRound,
                        sandboxInRawRound))
            }
            output(
                String(
                    format: "      server now: RSS %.0f MB, of which anonymous %.0f MB, file pages %.0f MB", megabytes(pid, "VmRSS"),
                    megabytes(pid, "RssAnon"), megabytes(pid, "RssFile")))
            engineTimes.append(engine)
            rawTimes.append(raw)
            output(
                String(
                    format: "%5d %10.2f %14.2f %11.2f× %16.0f %14.2f %18.2f", round, engine, raw, engine / raw, megabytes(pid, "VmHWM"), serverUsed,
                    rawUsed))
        }
        let engine = engineTimes.sorted()[engineTimes.count / 2]
        let raw = rawTimes.sorted()[rawTimes.count / 2]
        output(
            String(
                format: "median: engine %.2f s, raw client %.2f s: %.2f× (goal ≤ 1.2×); server peak %.0f MB (goal ≤ 300 MB)", engine, raw,
                engine / raw, megabytes(pid, "VmHWM")))
    }

    /// The raw client's round: the payload the engine sent, to every token, timed until the last
    /// answer; with `window` nil all queued at once (as the engine benchmark's ceiling), else at
    /// most `window` waiting for their answer.
    static func rawRound(client: APNSClient, tokens: Int, payload: [UInt8], bundleID: String, control: Int, window: Int?) throws -> Double {
        let before = try acceptedCount(control: control)
        let topic = APNSPushType.liveActivity.topic(bundleID: bundleID)
        var ids = APNSIDGenerator()
        let group = DispatchGroup()
        let slots = DispatchSemaphore(value: window ?? 0)
        let started = ContinuousClock.now
        for index in 0..<tokens {
            if window != nil { slots.wait() }
            group.enter()
            let notification = APNSNotification(
                deviceToken: token(index), pushType: .liveActivity, topic: topic, apnsID: ids.next(), payload: payload)
            client.send(notification) { _ in
                if window != nil { slots.signal() }
                group.leave()
            }
        }
        group.wait()
        let elapsed = EngineBenchmark.seconds(ContinuousClock.now - started)
        let accepted = try acceptedCount(control: control) - before
        guard accepted == tokens else { throw EngineBenchmarkError("the raw client's round: \(accepted) of \(tokens) accepted") }
        return elapsed
    }

    static func waitForAccepted(_ count: Int, control: Int, round: Int) throws {
        let deadline = Date().addingTimeInterval(600)
        while try acceptedCount(control: control) < count {
            guard Date() < deadline else { throw EngineBenchmarkError("round \(round): not every token's push accepted after 600 s") }
            usleep(20_000)
        }
    }

    /// The sandbox's count of accepted pushes (`GET /sandbox` on its control port).
    static func acceptedCount(control: Int) throws -> Int {
        let object = try controlJSON(control: control, path: "/sandbox")
        guard let count = (object as? [String: Any])?["acceptedCount"] as? Int else {
            throw EngineBenchmarkError("the sandbox's /sandbox has no acceptedCount: \(object)")
        }
        return count
    }

    /// The payload of the last push the sandbox accepted for `token`: one of the last page's, as
    /// the sandbox keeps only its newest pushes.
    static func lastPayload(control: Int, token: String) throws -> [UInt8] {
        let object = try controlJSON(control: control, path: "/devices/\(token)/pushes")
        let pushes = (object as? [String: Any])?["pushes"] as? [[String: Any]] ?? []
        guard let encoded = pushes.last?["payloadBase64"] as? String, let payload = Data(base64Encoded: encoded) else {
            throw EngineBenchmarkError("the sandbox holds no push for the last token")
        }
        return Array(payload)
    }

    static func controlJSON(control: Int, path: String) throws -> Any {
        let response = try TestHTTPConnection(port: control, timeout: 30).request("GET", path)
        guard response.status == 200 else { throw EngineBenchmarkError("GET \(path) on the sandbox answered \(response.status)") }
        return try JSONSerialization.jsonObject(with: Data(response.text.utf8))
    }

    /// The user and system CPU time a process used so far (`/proc/PID/stat`, fields 14 and 15, in
    /// clock ticks of 1/100 s: Linux's proc(5)).
    static func cpuSeconds(_ path: String) -> Double {
        guard let stat = try? String(contentsOfFile: path, encoding: .utf8), let end = stat.lastIndex(of: ")") else { return 0 }
        // The fields after the command name, which may hold spaces: state is field 3.
        let fields = stat[stat.index(after: end)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return 0 }
        return (user + system) / 100
    }

    /// A `/proc/PID/status` figure (`VmRSS`, `VmHWM`) in MB.
    static func megabytes(_ pid: Int, _ field: String) -> Double {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = status.split(separator: "\n").first(where: { $0.hasPrefix(field + ":") }),
            let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
        else { return 0 }
        return kilobytes / 1024
    }
}
