import Foundation
import LivelineCrypto
import LivelineSandbox
import LivelineStore
import LivelineTestSupport
import LivelineTransitModel
import Testing

/// `liveline serve`'s logs, read from its standard output: one JSON line per request and per
/// engine event, each event naming its context key and `apns-id` — and not one line holding a
/// push token, a bearer token, the admin key or the APNs key, whatever happened.
@Suite struct ServeLogTests {
    static let adminKey = "log-test-admin-key-0123456789ab"

    @Test func aRunWithDeadTokensAFailedStartAndAChannelLogsEveryEventAndNoSecret() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-log-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appendingPathComponent("data")
        let logFile = folder.appendingPathComponent("stdout.jsonl")
        let sandbox = try APNSSandbox.start(SandboxConfiguration(folder: folder.appendingPathComponent("sandbox")))
        defer { sandbox.stop() }
        let bearer = SecureRandom.token(prefix: "ll_")
        let user = try Store.openSQLite(folder: data).accounts.createUser(
            household: "Fisch", name: "Dennis", avatarTint: "azure", emoji: "🐟", locale: "de", tokenHash: SHA256.hex(bearer), now: Date()
        )
        let environment = CrashRecoveryTests.environment(sandbox).merging([
            "LIVELINE_ADMIN_KEY": Self.adminKey, "LIVELINE_ACCESS_LOG": "stdout", "LIVELINE_LOG_LEVEL": "debug",
        ]) { $1 }
        let server = try ServeProcess(data: data, environment: environment, standardOutput: .file(logFile.path))
        defer { server.kill(SIGTERM) }

        // Two phones showing the trip (one uninstalled the app), two that can be started (one
        // APNs has never heard of).
        let tokens = (0..<4).map { String(format: "%064x", 0x5ec2e700 + $0) }
        sandbox.registerDevice(token: tokens[0])
        sandbox.markUnregistered(token: tokens[1], at: Date().addingTimeInterval(60))
        sandbox.registerDevice(token: tokens[2])
        let registrations = [
            #"{"kind":"la-update","token":"\#(tokens[0])","device_id":"phone-0","context_key":"trip:log","attributes_type":"TripLiveActivityAttributes"}"#,
            #"{"kind":"la-update","token":"\#(tokens[1])","device_id":"phone-1","context_key":"trip:log","attributes_type":"TripLiveActivityAttributes"}"#,
            #"{"kind":"la-pushToStart","token":"\#(tokens[2])","device_id":"phone-2","attributes_type":"TripLiveActivityAttributes"}"#,
            #"{"kind":"la-pushToStart","token":"\#(tokens[3])","device_id":"phone-3","attributes_type":"TripLiveActivityAttributes"}"#,
        ]
        for body in registrations {
            let registered = try TestHTTPConnection(port: server.port).request(
                "POST", "/api/apns/register", headers: ["Authorization": "Bearer \(bearer)"], json: body
            )
            #expect(registered.status == 200, "\(registered.text)")
        }
        let admin = ["Authorization": "Bearer \(Self.adminKey)"]
        let put = try TestHTTPConnection(port: server.port).request(
            "PUT", "/v1/contexts/trip:log", headers: admin, json: CrashRecoveryTests.trip(delay: 3))
        #expect(put.status == 201, "\(put.text)")
        let start = try TestHTTPConnection(port: server.port).request(
            "POST", "/v1/contexts/trip:log/start", headers: admin,
            json: #"{"userIds":[\#(user.id)],"alert":{"title":"S5 to the airport"},"useChannel":true}"#
        )
        #expect(start.status == 200, "\(start.text)")
        let log = { (try? String(contentsOf: logFile, encoding: .utf8)) ?? "" }
        // The start went out (and its failure was recorded) before the end.
        #expect(await eventually(timeout: 20) { log().contains(#""event":"startFailed""#) })
        let end = try TestHTTPConnection(port: server.port).request("POST", "/v1/contexts/trip:log/end", headers: admin)
        #expect(end.status == 200, "\(end.text)")
        #expect(await eventually(timeout: 20) { log().contains(#""event":"channelDeleted""#) }, "\(log())")
        server.kill(SIGTERM)

        let lines = log().split(separator: "\n").map(String.init)
        let objects = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        #expect(objects.count == lines.count, "every line is one JSON object")
        let events = objects.filter { $0["event"] != nil }
        func named(_ name: String) -> [[String: Any]] { events.filter { $0["event"] as? String == name } }
        #expect(objects.contains { $0["method"] as? String == "PUT" }, "the access log shares the stream")

        // What happened, each event naming its context and APNs' id.
        let invalidated = named("tokenInvalidated")
        #expect(invalidated.count == 2, "the uninstalled phone's update token, the unknown start token: \(invalidated)")
        #expect(invalidated.allSatisfy { $0["context.key"] as? String == "trip:log" && ($0["apns.id"] as? String)?.isEmpty == false })
        #expect(invalidated.contains { $0["apns.reason"] as? String == "Unregistered" && $0["level"] as? String == "info" })
        let failedStarts = named("startFailed")
        #expect(failedStarts.count == 1 && failedStarts.first?["apns.reason"] as? String == "BadDeviceToken")
        #expect(failedStarts.first?["level"] as? String == "warning" && failedStarts.first?["apns.id"] != nil)
        #expect(named("channelCreated").first?["context.key"] as? String == "trip:log")
        #expect(named("channelDeleted").first?["channel.id"] as? String == named("channelCreated").first?["channel.id"] as? String)
        #expect(named("pushAnswered").count >= 6, "at debug every answer is logged")
        #expect(named("pushAnswered").allSatisfy { $0["apns.id"] != nil && $0["apns.status"] != nil })

        // And no secret, in any line of either stream.
        let everything = log() + server.remainingOutput()
        let key = try String(contentsOf: sandbox.keyFile, encoding: .utf8)
        let keyLines = key.split(separator: "\n").filter { !$0.hasPrefix("-----") && $0.count > 16 }
        #expect(!keyLines.isEmpty)
        // A JWT is its base64url header and claims, each starting `eyJ` (`{"`); a random id may hold
        // those three letters by chance (a channel id did once), so the shape is looked for.
        #expect(everything.range(of: #"eyJ[A-Za-z0-9_-]+\.eyJ"#, options: .regularExpression) == nil, "the log holds a JWT")
        var secrets: [String: String] = ["bearer token": bearer, "admin key": Self.adminKey, "PEM": "PRIVATE KEY"]
        for (index, token) in tokens.enumerated() { secrets["push token \(index)"] = token }
        for (index, line) in keyLines.enumerated() { secrets["APNs key line \(index)"] = String(line) }
        for (name, secret) in secrets {
            #expect(!everything.localizedCaseInsensitiveContains(secret), "the log holds the \(name)")
        }
    }
}
