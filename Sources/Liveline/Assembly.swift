import Foundation
import LivelineAPI
import LivelineCookSuggest
import LivelineModel
import LivelinePush
import LivelinePushWire
import LivelineSandbox
import LivelineServer
import LivelineShopping
import LivelineTransit

/// The composition root: configuration and features in, a server out, pushing to APNs or to an
/// in-process sandbox. `liveline serve`, the tests and the benchmarks all assemble it here, and a
/// backend built on Liveline adds its own features the same way (docs/architecture.md).
public enum Assembly {
    /// The built-in features, in the order their migrations run.
    public static let features: [any Feature] = [ShoppingFeature(), CookSuggestFeature(), TransitFeature()]

    /// The contracts of `features`: what a server of them checks and renders against.
    public static func contracts(of features: [any Feature] = features) -> ContractRegistry {
        ContractRegistry(features.flatMap(\.contracts))
    }

    /// A server and the APNs sandbox it pushes to when it runs one in-process.
    public struct Server: Sendable {
        public let app: Application
        /// The in-process APNs sandbox (the embedded default, without an APNs key): the default
        /// environment's.
        public let sandbox: APNSSandbox?
        /// The other environment's in-process sandbox, with `LIVELINE_SANDBOX_ENVIRONMENTS=both`.
        public var otherSandbox: APNSSandbox? = nil
    }

    /// Where the configuration's pushes go: with an APNs key, Apple (or another APNs-speaking
    /// server); without one, an APNs sandbox started in-process over real HTTP/2 + TLS, its
    /// certificate and test key kept in `<data>/apns-sandbox` (and with
    /// `LIVELINE_SANDBOX_ENVIRONMENTS=both` a second one for the other environment, same key and
    /// certificate).
    static func transportAndSandboxes(_ configuration: ServerConfiguration) throws -> (PushTransport, APNSSandbox?, APNSSandbox?) {
        let apns = configuration.apns
        if apns.hasKey {
            let credentials = try apns.credentials()
            // Nothing the dispatcher stopped waiting for (after 80 % of the lease) goes out later
            // beside its retry: the client's own resends end well before (docs/reliability.md,
            // "Network faults").
            let deadline = max(0.5, min(60, configuration.outboxLease * 0.8) * 0.75)
            var clientConfiguration = APNSClientConfiguration(credentials: credentials, environment: apns.apnsEnvironment)
            clientConfiguration.requestDeadline = deadline
            let client = try APNSClient(configuration: clientConfiguration)
            var description =
                "APNs \(apns.apnsEnvironment.device) (\(apns.environment.rawValue), key \(apns.keyID ?? "?"), team \(apns.teamID ?? "?"), bundle \(apns.bundleID))"
            var others: [PushEnvironment: APNSClient] = [:]
            if apns.servesOtherEnvironment {
                // The one key works for both environments.
                do {
                    var otherConfiguration = APNSClientConfiguration(credentials: credentials, environment: apns.otherAPNSEnvironment)
                    otherConfiguration.requestDeadline = deadline
                    others[apns.otherEnvironment] = try APNSClient(configuration: otherConfiguration)
                } catch {
                    client.shutdown()
                    throw error
                }
                description += "; \(apns.otherEnvironment.rawValue) tokens through \(apns.otherAPNSEnvironment.device)"
            }
            return (PushTransport(client: client, otherClients: others, description: description), nil, nil)
        }
        // The data folder first, owner only (0700): the sandbox's folder is made inside it, and a
        // folder made on the way there would get the default mode.
        try? FileManager.default.createDirectory(
            at: configuration.dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var sandboxConfiguration = SandboxConfiguration(folder: configuration.dataDirectory.appendingPathComponent("apns-sandbox"))
        sandboxConfiguration.bundleID = apns.bundleID
        // A server left running keeps a bounded record of what its sandbox accepted.
        sandboxConfiguration.acceptedKept = SandboxConfiguration.boundedKept
        let sandbox: APNSSandbox
        var other: APNSSandbox?
        if apns.sandboxPlaysBoth {
            // One folder: one key and certificate, as Apple's one key serves both environments.
            let pair = try APNSSandbox.startBoth(sandboxConfiguration)
            (sandbox, other) = apns.environment == .production ? (pair.production, pair.development) : (pair.development, pair.production)
        } else {
            sandbox = try APNSSandbox.start(sandboxConfiguration)
        }
        var clients: [APNSClient] = []
        do {
            let client = try sandboxClient(sandbox)
            clients.append(client)
            var others: [PushEnvironment: APNSClient] = [:]
            var description =
                "in-process APNs sandbox at https://127.0.0.1:\(sandbox.devicePort) (CA \(sandbox.certificateFile.path), bundle \(sandbox.bundleID))"
            if let other {
                let otherClient = try sandboxClient(other)
                clients.append(otherClient)
                others[apns.otherEnvironment] = otherClient
                description += "; \(apns.otherEnvironment.rawValue) tokens through the one at https://127.0.0.1:\(other.devicePort)"
            }
            let stop: @Sendable () -> Void = { [other] in
                sandbox.stop()
                other?.stop()
            }
            // What the sandbox accepted, for the dashboard and GET /v1/sandbox/accepted.
            let record = SandboxRecord(description: description)
            for stand in [sandbox, other].compactMap({ $0 }) {
                _ = stand.observeAccepted { push in record.record(sandboxPush(push)) }
            }
            return (
                PushTransport(client: client, otherClients: others, description: description, stop: stop, sandboxRecord: record), sandbox, other
            )
        } catch {
            for client in clients { client.shutdown() }
            sandbox.stop()
            other?.stop()
            throw error
        }
    }

    /// An accepted push as the sandbox's record keeps it: the token by prefix, the event read
    /// from the body without decoding all of it.
    static func sandboxPush(_ push: AcceptedPush) -> SandboxRecord.Push {
        SandboxRecord.Push(
            apnsID: push.apnsID, pushType: push.pushType, priority: push.priority, tokenPrefix: push.token.map { String($0.prefix(8)) + "…" },
            channelID: push.channelID, bytes: push.payload.count, event: event(in: push.payload), acceptedAt: push.receivedAt)
    }

    /// The value of the first `"event":"…"` in a push body (a Live Activity push's `aps.event`).
    static func event(in payload: [UInt8]) -> String? {
        let needle = Array(#""event":""#.utf8)
        guard payload.count > needle.count else { return nil }
        var index = 0
        while index + needle.count <= payload.count {
            if payload[index] == needle[0], Array(payload[index..<index + needle.count]) == needle {
                let start = index + needle.count
                guard let end = payload[start...].firstIndex(of: UInt8(ascii: "\"")), end - start <= 16 else { return nil }
                return String(decoding: payload[start..<end], as: UTF8.self)
            }
            index += 1
        }
        return nil
    }

    /// A client of an in-process sandbox, signing with its key.
    private static func sandboxClient(_ sandbox: APNSSandbox) throws -> APNSClient {
        try APNSClient(
            configuration: APNSClientConfiguration(
                credentials: APNSCredentials(keyID: sandbox.keyID, teamID: sandbox.teamID, key: sandbox.signingKey),
                environment: .local(devicePort: sandbox.devicePort, managementPort: sandbox.managementPort, caFile: sandbox.certificateFile.path)
            ))
    }

    /// The server of `configuration` with `features` (by default the built-in ones), pushing where
    /// ``transportAndSandboxes(_:)`` says; its times from `clock`, by default the database's
    /// (``buildApplication(_:transport:features:clock:wallClock:)``).
    public static func server(
        _ configuration: ServerConfiguration, features: [any Feature] = Assembly.features, clock: (@Sendable () -> Date)? = nil,
        wallClock: @escaping @Sendable () -> Date = { Date() }
    ) throws -> Server {
        let (transport, sandbox, other) = try transportAndSandboxes(configuration)
        do {
            let app = try buildApplication(configuration, transport: transport, features: features, clock: clock, wallClock: wallClock)
            // The in-process sandbox is this server's own APNs for testing: the tokens its users
            // register are devices it knows (everything else it answers as APNs does).
            // Playing both environments, each knows the tokens said (or learned) to be of its own.
            let tokens = app.store.tokens
            for stand in [sandbox, other].compactMap({ $0 }) {
                let environment: PushEnvironment? = other == nil ? nil : (stand.environment == .production ? .production : .sandbox)
                stand.acceptTokens { token in (try? tokens.isActive(apnsToken: token, environment: environment)) ?? false }
            }
            return Server(app: app, sandbox: sandbox, otherSandbox: other)
        } catch {
            transport.stop()
            transport.shutdownClients()
            throw error
        }
    }
}
