import Foundation
import LivelineAPI
import LivelineModel
import LivelinePush
import LivelineSandbox
import LivelineServer
import LivelineShopping

/// What `liveline serve` runs: the features, and where its pushes go. Tests and benchmarks that
/// run a server assemble it here too, so they run what ships.
public enum Assembly {
    /// The features of the server, in the order their migrations run.
    public static let features: [any Feature] = [ShoppingFeature()]

    /// A server and the APNs sandbox it pushes to when it runs one in-process.
    public struct Server: Sendable {
        public let app: Application
        /// The in-process APNs sandbox (the embedded default, without an APNs key).
        public let sandbox: APNSSandbox?
    }

    /// Where the configuration's pushes go: with an APNs key, Apple (or another APNs-speaking
    /// server); without one, an APNs sandbox started in-process over real HTTP/2 + TLS, its
    /// certificate and test key kept in `<data>/apns-sandbox`.
    public static func transport(_ configuration: ServerConfiguration) throws -> (PushTransport, APNSSandbox?) {
        let apns = configuration.apns
        if apns.hasKey {
            let credentials = try apns.credentials()
            let client = try APNSClient(configuration: APNSClientConfiguration(credentials: credentials, environment: apns.apnsEnvironment))
            var description =
                "APNs \(apns.apnsEnvironment.device) (\(apns.environment.rawValue), key \(apns.keyID ?? "?"), team \(apns.teamID ?? "?"), bundle \(apns.bundleID))"
            var others: [PushEnvironment: APNSClient] = [:]
            if apns.servesOtherEnvironment {
                // The one key works for both environments.
                others[apns.otherEnvironment] = try APNSClient(
                    configuration: APNSClientConfiguration(credentials: credentials, environment: apns.otherAPNSEnvironment))
                description += "; \(apns.otherEnvironment.rawValue) tokens through \(apns.otherAPNSEnvironment.device)"
            }
            return (PushTransport(client: client, otherClients: others, description: description), nil)
        }
        var sandboxConfiguration = SandboxConfiguration(folder: configuration.dataDirectory.appendingPathComponent("apns-sandbox"))
        sandboxConfiguration.bundleID = apns.bundleID
        let sandbox = try APNSSandbox.start(sandboxConfiguration)
        do {
            let client = try APNSClient(
                configuration: APNSClientConfiguration(
                    credentials: APNSCredentials(keyID: sandbox.keyID, teamID: sandbox.teamID, key: sandbox.signingKey),
                    environment: .local(devicePort: sandbox.devicePort, managementPort: sandbox.managementPort, caFile: sandbox.certificateFile.path)
                ))
            let description =
                "in-process APNs sandbox at https://127.0.0.1:\(sandbox.devicePort) (CA \(sandbox.certificateFile.path), bundle \(sandbox.bundleID))"
            return (PushTransport(client: client, description: description, stop: { sandbox.stop() }), sandbox)
        } catch {
            sandbox.stop()
            throw error
        }
    }

    /// The server of `configuration` with ``features``, pushing where ``transport(_:)`` says.
    public static func server(_ configuration: ServerConfiguration, clock: @escaping @Sendable () -> Date = { Date() }) throws -> Server {
        let (transport, sandbox) = try transport(configuration)
        do {
            return Server(app: try buildApplication(configuration, transport: transport, features: features, clock: clock), sandbox: sandbox)
        } catch {
            transport.stop()
            transport.shutdownClients()
            throw error
        }
    }
}
