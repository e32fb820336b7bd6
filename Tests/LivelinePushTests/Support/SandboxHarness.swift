import Foundation
import LivelineCrypto
import LivelinePush
import LivelinePushWire
import LivelineSandbox
import Synchronization

/// A clock tests move by hand.
final class TestClock: Sendable {
    private let now: Mutex<Date>
    init(_ start: Date = Date()) { now = Mutex(start) }
    func advance(minutes: Double) { now.withLock { $0 = $0.addingTimeInterval(minutes * 60) } }
    var read: @Sendable () -> Date { { self.now.withLock { $0 } } }
}

/// An in-process APNs sandbox over real HTTP/2 + TLS, and an `APNSClient` pointed at it.
final class SandboxHarness: Sendable {
    let folder: URL
    let sandbox: APNSSandbox
    let client: APNSClient
    let sandboxClock: TestClock
    let clientClock: TestClock

    init(maxConcurrentStreams: UInt32 = 1000, maxConnections: Int = 1, configure: (inout SandboxConfiguration) -> Void = { _ in }) throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-push-tests-\(UUID().uuidString)")
        let start = Date()
        sandboxClock = TestClock(start)
        clientClock = TestClock(start)
        var configuration = SandboxConfiguration(folder: folder)
        configuration.maxConcurrentStreams = maxConcurrentStreams
        configuration.clock = sandboxClock.read
        configure(&configuration)
        sandbox = try APNSSandbox.start(configuration)
        client = try APNSClient(
            configuration: APNSClientConfiguration(
                credentials: APNSCredentials(keyID: sandbox.keyID, teamID: sandbox.teamID, key: sandbox.signingKey),
                environment: .local(devicePort: sandbox.devicePort, managementPort: sandbox.managementPort, caFile: sandbox.certificateFile.path),
                maxConnectionsPerEndpoint: maxConnections, clock: clientClock.read
            ))
    }

    /// A registered device token.
    func device(_ index: Int = 0) -> String {
        let token = String(format: "%064x", index + 1)
        sandbox.registerDevice(token: token)
        return token
    }

    func push(to token: String, payload: String = #"{"aps":{"timestamp":1,"event":"update","content-state":{}}}"#) -> APNSNotification {
        .liveActivity(deviceToken: token, bundleID: sandbox.bundleID, payload: Array(payload.utf8))
    }

    func stop() {
        sandbox.stop()  // first: its GOAWAY lets the running client close at once
        client.shutdown()
        try? FileManager.default.removeItem(at: folder)
    }
}
