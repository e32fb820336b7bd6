import Foundation
import LivelineCrypto
import LivelineHTTP
import LivelineHTTP2
import LivelineLog
import Synchronization

/// An APNs look-alike for tests and trials: HTTP/2 over TLS on a device port (`/3/device/…`,
/// `/4/broadcasts/apps/…`) and a channel management port (`/1/apps/…`), answering with Apple's
/// status codes and reason strings, recording what it accepted, and injecting faults on demand.
///
/// Related APNs documentation: "Sending notification requests to APNs", "Establishing a
/// token-based connection to APNs", "Handling notification responses from APNs", "Sending channel
/// management requests to APNs", "Sending broadcast push notification requests to APNs"
/// (`docs/apns.md` Part 1). A 200 is HEADERS with END_STREAM and no DATA frame, always with
/// `apns-id` (plus `apns-unique-id` in development); errors are `{"reason": …}`.
///
/// Provider tokens are ES256 JWTs signed by a key the sandbox trusts: the one it generated
/// (`keyFile`, `signingKey`, `keyID`, `teamID`) or any added with `addKey`.
///
/// It also runs a browser vendor's push service, `webPush` (HTTP/1.1, docs/sandbox.md, "Web push
/// service"), on the sandbox clock.
public final class APNSSandbox: Sendable {
    public let devicePort: Int
    public let managementPort: Int
    /// The JSON HTTP/1.1 control port, when configured.
    public let controlPort: Int?
    public let host: String
    /// The self-signed certificate clients trust (it is its own CA).
    public let certificateFile: URL
    /// The generated provider key, an Apple-style `.p8` (PKCS#8 PEM).
    public let keyFile: URL
    /// The same key in memory.
    public let signingKey: ES256PrivateKey
    public let keyID: String
    public let teamID: String
    public let bundleID: String
    public let environment: SandboxEnvironment
    /// The Web Push service: simulated browser subscriptions and what was pushed to them.
    public let webPush: WebPushService

    let core: SandboxCore
    private let deviceServer: HTTP2Server
    private let managementServer: HTTP2Server
    private let controlServer: HTTPServer?
    private let stopped = Atomic<Bool>(false)

    private init(
        configuration: SandboxConfiguration, core: SandboxCore, deviceServer: HTTP2Server, managementServer: HTTP2Server,
        controlServer: HTTPServer?, webPush: WebPushService, certificateFile: URL, keyFile: URL, signingKey: ES256PrivateKey
    ) {
        self.core = core
        self.webPush = webPush
        self.deviceServer = deviceServer
        self.managementServer = managementServer
        self.controlServer = controlServer
        self.devicePort = deviceServer.port
        self.managementPort = managementServer.port
        self.controlPort = controlServer?.port
        self.host = configuration.host
        self.certificateFile = certificateFile
        self.keyFile = keyFile
        self.signingKey = signingKey
        self.keyID = configuration.keyID
        self.teamID = configuration.teamID
        self.bundleID = configuration.bundleID
        self.environment = configuration.environment
    }

    /// Makes (or reuses) the certificate and key in `configuration.folder`, then listens.
    public static func start(_ configuration: SandboxConfiguration) throws -> APNSSandbox {
        let folder = configuration.folder
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        } catch {
            throw SandboxError("could not create the sandbox folder \(folder.path): \(error.localizedDescription)")
        }
        // Listening on another address than 127.0.0.1 (`--host`), the certificate names it too, so
        // clients that connect there can verify it.
        let listens = ["127.0.0.1", "0.0.0.0", "localhost"].contains(configuration.host) ? nil : configuration.host
        let certificate = try SelfSignedCertificate.loadOrCreate(in: folder, address: listens)
        let (keyFile, signingKey) = try loadOrCreateKey(in: folder, keyID: configuration.keyID)
        let tls = try TLSContext.server(certificateFile: certificate.certificate.path, privateKeyFile: certificate.privateKey.path)

        let core = SandboxCore(configuration: configuration)
        core.verifier.addKey(signingKey.publicKey, keyID: configuration.keyID, teamID: configuration.teamID)
        let deviceServer = HTTP2Server(
            configuration: HTTP2ServerConfiguration(
                host: configuration.host, port: configuration.devicePort, tls: tls,
                maxConcurrentStreams: configuration.maxConcurrentStreams, threads: max(1, configuration.threads),
                // Its responses carry request IDs, new in every response: not worth indexing.
                indexesResponseHeaders: false
            ),
            handler: SandboxRequestHandler(core: core, port: .device)
        )
        let managementServer = HTTP2Server(
            configuration: HTTP2ServerConfiguration(
                host: configuration.host, port: configuration.managementPort, tls: tls,
                maxConcurrentStreams: configuration.maxConcurrentStreams, threads: 1, indexesResponseHeaders: false
            ),
            handler: SandboxRequestHandler(core: core, port: .management)
        )
        try deviceServer.start()
        let webPush: WebPushService
        do {
            try managementServer.start()
            webPush = try WebPushService.start(port: configuration.webPushPort, host: configuration.host) { core.now }
        } catch {
            deviceServer.shutdown(timeout: .zero)
            managementServer.shutdown(timeout: .zero)
            throw error
        }
        var controlServer: HTTPServer?
        if let controlPort = configuration.controlPort {
            let info = SandboxControlAPI.Info(
                host: configuration.host, devicePort: deviceServer.port, managementPort: managementServer.port,
                certificateFile: certificate.certificate.path, keyFile: keyFile.path, keyID: configuration.keyID,
                teamID: configuration.teamID, bundleID: configuration.bundleID, environment: configuration.environment.rawValue,
                webPushOrigin: webPush.origin, webPushPort: webPush.port
            )
            let server = HTTPServer(
                configuration: HTTPServerConfiguration(host: configuration.host, port: controlPort, threads: 1),
                router: SandboxControlAPI.router(core: core, info: info, signingKey: signingKey),
                accessLog: LogSink.discarding()
            )
            do {
                try server.start()
            } catch {
                deviceServer.shutdown(timeout: .zero)
                managementServer.shutdown(timeout: .zero)
                webPush.stop()
                throw error
            }
            controlServer = server
        }
        return APNSSandbox(
            configuration: configuration, core: core, deviceServer: deviceServer, managementServer: managementServer,
            controlServer: controlServer, webPush: webPush, certificateFile: certificate.certificate, keyFile: keyFile, signingKey: signingKey
        )
    }

    /// Loads `AuthKey_<keyID>.p8` from `folder`, or generates it (mode 0600).
    static func loadOrCreateKey(in folder: URL, keyID: String) throws -> (URL, ES256PrivateKey) {
        let file = folder.appendingPathComponent("AuthKey_\(keyID).p8")
        if FileManager.default.fileExists(atPath: file.path) {
            return (file, try ES256PrivateKey(contentsOf: file))
        }
        let key = try ES256PrivateKey.generate()
        guard FileManager.default.createFile(atPath: file.path, contents: Data(key.pkcs8PEM.utf8), attributes: [.posixPermissions: 0o600]) else {
            throw SandboxError("could not write the provider key \(file.path)")
        }
        return (file, key)
    }

    // MARK: Keys and tokens

    /// Trusts another provider key (another key of a team, or another team).
    public func addKey(_ key: ES256PublicKey, keyID: String, teamID: String) {
        core.verifier.addKey(key, keyID: keyID, teamID: teamID)
    }

    /// A provider token signed with the sandbox's key, issued at `issuedAt` (default: the
    /// sandbox clock's now), as sent after `bearer `.
    public func providerToken(issuedAt: Date? = nil) throws -> String {
        let seconds = Int((issuedAt ?? core.now).timeIntervalSince1970)
        return try ProviderToken.sign(keyID: keyID, teamID: teamID, issuedAt: seconds, key: signingKey).compact
    }

    // MARK: Devices and apps

    /// From now on a push to a token this sandbox does not know is accepted when `registered`
    /// says the server registered it (the sandbox as a server's own APNs for testing: the tokens
    /// its users register work). Everything else is answered as APNs answers it.
    public func acceptTokens(_ registered: @escaping @Sendable (String) -> Bool) {
        core.knownTokens.withLock { $0 = registered }
    }

    /// Allows the topics of another app (device tokens registered for it allow it too).
    public func registerBundle(_ bundleID: String) {
        _ = core.state.withLock { $0.bundles.insert(bundleID) }
    }

    /// Registers `token` (hex, any case) for `bundleID` (nil: the configured app) as active.
    public func registerDevice(token: String, bundleID: String? = nil) {
        let bundle = bundleID ?? self.bundleID
        core.state.withLock { state in
            state.bundles.insert(bundle)
            state.devices[token.lowercased()] = DeviceRecord(bundleID: bundle, status: .active)
        }
    }

    /// From now on pushes to `token` get `410 Unregistered` with `at` as the timestamp (a token
    /// not registered yet is registered for the configured app first).
    public func markUnregistered(token: String, at date: Date) {
        setStatus(.unregistered(date), of: token)
    }

    /// From now on pushes to `token` get `410 ExpiredToken` with `at` as the timestamp.
    public func markExpired(token: String, at date: Date) {
        setStatus(.expired(date), of: token)
    }

    private func setStatus(_ status: DeviceRecord.Status, of token: String) {
        let key = token.lowercased()
        core.state.withLock { state in
            var record = state.devices[key] ?? DeviceRecord(bundleID: bundleID, status: .active)
            record.status = status
            state.devices[key] = record
        }
    }

    // MARK: Observing what is accepted

    /// Calls `handler` with every push the sandbox accepts from now on (device and broadcast), on
    /// the sandbox's I/O thread — keep it short (simulated devices queue it). Returns an id for
    /// ``stopObserving(_:)``.
    @discardableResult
    public func observeAccepted(_ handler: @escaping @Sendable (AcceptedPush) -> Void) -> UInt64 {
        core.observers.withLock { observers in
            observers.next += 1
            observers.handlers[observers.next] = handler
            return observers.next
        }
    }

    public func stopObserving(_ id: UInt64) {
        _ = core.observers.withLock { $0.handlers.removeValue(forKey: id) }
    }

    /// Whether `token` is registered and active (not unregistered or expired).
    public func isActive(token: String) -> Bool {
        core.state.withLock { state in
            if case .active? = state.devices[token.lowercased()]?.status { return true }
            return false
        }
    }

    // MARK: Faults

    /// Replaces the faults; the draws start again from the seed.
    public func setFaults(_ faults: SandboxFaults) {
        core.state.withLock {
            $0.faults = faults
            $0.faultDraws = 0
        }
    }

    public var faults: SandboxFaults { core.state.withLock { $0.faults } }

    // MARK: What was accepted

    /// Pushes accepted for `token` (any case), in the order accepted.
    public func accepted(token: String) -> [AcceptedPush] {
        core.state.withLock { $0.acceptedByToken[token.lowercased()] ?? [] }
    }

    /// Broadcasts accepted on `channel`, in the order accepted.
    public func accepted(channel: String) -> [AcceptedPush] {
        core.state.withLock { $0.acceptedByChannel[channel] ?? [] }
    }

    /// Pushes and broadcasts accepted since start or `reset()`.
    public var acceptedCount: Int { core.state.withLock { $0.acceptedCount } }

    /// The channel IDs of `bundleID` (nil: the configured app), oldest first.
    public func channels(bundleID: String? = nil) -> [String] {
        core.state.withLock { $0.channelOrder[bundleID ?? self.bundleID] ?? [] }
    }

    // MARK: Time, reset, stop

    /// The sandbox's idea of now (`iat` age, 410 timestamps, token update spacing, `receivedAt`).
    public var clock: @Sendable () -> Date {
        get { core.state.withLock { $0.clock } }
        set { core.state.withLock { $0.clock = newValue } }
    }

    /// Forgets accepted pushes, registered devices and apps (but the configured one), channels
    /// (their IDs are still never reissued), faults and cached tokens. Keys and open connections
    /// (with their bindings) stay.
    public func reset() {
        core.reset(bundleID: bundleID)
    }

    /// Open HTTP/2 connections on the push and management ports.
    public var connectionCount: Int { deviceServer.connectionCount + managementServer.connectionCount }

    /// Sends GOAWAY `{"reason":"Shutdown"}` on every connection, waits briefly for them to close,
    /// and stops listening (the Web Push service too). Safe to call twice.
    public func stop() {
        guard !stopped.exchange(true, ordering: .relaxed) else { return }
        controlServer?.shutdown(timeout: .seconds(2))
        webPush.stop()
        deviceServer.shutdown(timeout: .seconds(2))
        managementServer.shutdown(timeout: .seconds(2))
    }

    /// `https://host:devicePort`.
    public var deviceURL: String { "https://\(host):\(devicePort)" }
    /// `https://host:managementPort`.
    public var managementURL: String { "https://\(host):\(managementPort)" }
    /// `http://host:controlPort`, when there is a control port.
    public var controlURL: String? { controlPort.map { "http://\(host):\($0)" } }
}
