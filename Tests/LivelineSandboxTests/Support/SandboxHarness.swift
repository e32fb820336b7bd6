import Foundation
import LivelineCrypto
import LivelineHTTP2
@testable import LivelineSandbox

/// A sandbox on free ports with a hand-moved clock, plus clients and requests for it.
struct SandboxHarness {
    /// Certificate and key made once per test run (every sandbox of the run reuses them).
    static let folder: URL = {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-sandbox-tests-\(getpid())")
        _ = try? APNSSandbox.start(SandboxConfiguration(folder: folder)).stop()
        return folder
    }()

    static let loop = try! EventLoop(name: "sandbox-test-client")

    /// A registered, active Live Activity token of the configured app.
    static let token = String(repeating: "ab", count: 32)
    static let liveActivityPayload = Array(#"{"aps":{"timestamp":1767000000,"event":"update","content-state":{"n":1}}}"#.utf8)

    let sandbox: APNSSandbox
    let clock: TestClock

    init(
        environment: SandboxEnvironment = .development, acceptAnyToken: Bool = false, channelQuota: Int = 10_000,
        controlPort: Int? = nil, maxConcurrentStreams: UInt32 = 1000
    ) throws {
        clock = TestClock()
        sandbox = try APNSSandbox.start(
            SandboxConfiguration(
                folder: Self.folder, controlPort: controlPort, environment: environment, maxConcurrentStreams: maxConcurrentStreams,
                acceptAnyToken: acceptAnyToken, channelQuota: channelQuota, clock: clock.function
            ))
        sandbox.registerDevice(token: Self.token)
    }

    func client(management: Bool = false) throws -> HTTP2ClientConnection {
        try HTTP2ClientConnection(
            host: "127.0.0.1", port: management ? sandbox.managementPort : sandbox.devicePort,
            tls: try TLSContext.client(caFile: sandbox.certificateFile.path), loop: Self.loop
        )
    }

    /// A provider token of the sandbox's key issued at the sandbox clock's now (or `issuedAt`).
    func jwt(issuedAt: Date? = nil, key: ES256PrivateKey? = nil, keyID: String? = nil, teamID: String? = nil) throws -> String {
        try ProviderToken.sign(
            keyID: keyID ?? sandbox.keyID, teamID: teamID ?? sandbox.teamID,
            issuedAt: Int((issuedAt ?? clock.now).timeIntervalSince1970), key: key ?? sandbox.signingKey
        ).compact
    }

    /// The headers of a Live Activity push, with `changes` applied (a nil value removes the header).
    func liveActivityHeaders(jwt: String? = nil, _ changes: [(String, String?)] = []) throws -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = [
            ("authorization", "bearer " + (try jwt ?? self.jwt())),
            ("apns-push-type", "liveactivity"),
            ("apns-topic", sandbox.bundleID + ".push-type.liveactivity"),
            ("apns-priority", "10"),
        ]
        for (name, value) in changes {
            headers.removeAll { $0.name == name }
            if let value { headers.append((name, value)) }
        }
        return headers
    }

    /// A Live Activity push to `token`.
    func push(
        _ client: HTTP2ClientConnection, token: String = Self.token, jwt: String? = nil, _ changes: [(String, String?)] = [],
        body: [UInt8] = Self.liveActivityPayload, method: String = "POST", path: String? = nil
    ) async throws -> HTTP2ClientResponse {
        try await client.send(
            HTTP2ClientRequest(
                method: method, path: path ?? "/3/device/\(token)", headers: try liveActivityHeaders(jwt: jwt, changes), body: body
            ))
    }
}

extension HTTP2ClientResponse {
    /// `reason` of an error body.
    var reason: String? {
        (try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["reason"] as? String
    }

    /// `timestamp` of a 410 body.
    var timestamp: Int64? {
        ((try? JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])?["timestamp"] as? NSNumber)?.int64Value
    }
}
