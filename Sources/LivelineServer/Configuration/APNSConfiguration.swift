import Foundation
import LivelineCrypto
import LivelineModel
import LivelinePush
import LivelinePushWire

/// How Liveline reaches APNs: Apple's servers when a key is configured (`LIVELINE_APNS_KEY_PATH`,
/// key id, team id, bundle id, environment), else the APNs sandbox started in-process. `host`,
/// `port` and `caFile` point the client at another server that speaks APNs (e.g. a
/// `liveline sandbox` in another process).
public struct APNSConfiguration: Sendable {
    /// The `.p8` key file.
    public var keyPath: String?
    /// The key's 10-character id.
    public var keyID: String?
    /// The 10-character team id.
    public var teamID: String?
    /// The app's bundle id (topics are derived from it).
    public var bundleID = "dev.liveline.demo"
    /// Which APNs environment: `sandbox` (Apple's development) or `production`.
    public var environment = PushEnvironment.sandbox
    /// Overrides of the device endpoint (another APNs-speaking server).
    public var host: String?
    public var port: Int?
    public var managementPort: Int?
    /// The host of broadcast sends, where Apple's documents disagree (default: the device host).
    public var broadcastHost: String?
    /// A CA file to trust (a sandbox's self-signed certificate), for both environments.
    public var caFile: String?
    /// Overrides of each environment's endpoints (`LIVELINE_APNS_DEVELOPMENT_HOST`/`_PORT`/
    /// `_MANAGEMENT_PORT`, `LIVELINE_APNS_PRODUCTION_HOST`/`_PORT`/`_MANAGEMENT_PORT`);
    /// `host`/`port`/`managementPort` keep meaning the default one's.
    public var developmentHost: String?
    public var developmentPort: Int?
    public var developmentManagementPort: Int?
    public var productionHost: String?
    public var productionPort: Int?
    public var productionManagementPort: Int?

    /// `LIVELINE_APNS_ENVIRONMENTS=one`: only the default environment is served even with a key
    /// that could serve both (a key limited to one environment, or a second server of the app
    /// serving the other).
    public var servesBothEnvironments = true
    /// Without a key: the in-process sandbox plays both environments (one sandbox each, one key
    /// and CA), not only the default one (`LIVELINE_SANDBOX_ENVIRONMENTS=both`).
    public var sandboxPlaysBoth = false

    public init() {}

    /// Reads the `LIVELINE_APNS_*` variables: a loop over ``settings``. A malformed value is an
    /// error naming it.
    public static func fromEnvironment(_ environment: [String: String]) throws -> APNSConfiguration {
        var config = APNSConfiguration()
        for reader in settings { try reader.read(environment, into: &config) }
        return config
    }

    /// Whether a key is configured (else the embedded sandbox is used).
    public var hasKey: Bool { keyPath != nil }

    /// Checks the settings belong together and names what is missing.
    public func validate() throws {
        if hasKey {
            guard keyID != nil else { throw ConfigurationError("LIVELINE_APNS_KEY_ID is needed with LIVELINE_APNS_KEY_PATH") }
            guard teamID != nil else { throw ConfigurationError("LIVELINE_APNS_TEAM_ID is needed with LIVELINE_APNS_KEY_PATH") }
        }
        if let keyID, keyID.count != 10 {
            throw ConfigurationError("the key id must be the 10 characters Apple shows with the key, not '\(keyID)'")
        }
        if let teamID, teamID.count != 10 {
            throw ConfigurationError("the team id must be the 10 characters of your Apple team, not '\(teamID)'")
        }
        try Self.validateBundleID(bundleID)
    }

    /// A bundle id is reverse-DNS letters, digits, `-` and `.`, and never carries a topic suffix.
    static func validateBundleID(_ bundleID: String) throws {
        let allowed = bundleID.unicodeScalars.allSatisfy {
            ($0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0))) || $0 == "." || $0 == "-"
        }
        guard allowed, bundleID.contains("."), !bundleID.hasPrefix("."), !bundleID.hasSuffix(".") else {
            throw ConfigurationError("the bundle id must look like com.example.app, not '\(bundleID)'")
        }
        for suffix in [".push-type.", ".voip", ".complication", ".location-query", ".pushkit."] where bundleID.contains(suffix) {
            throw ConfigurationError("'\(bundleID)' looks like a topic: give the bare bundle id (the \(suffix) suffix is added per push type)")
        }
    }

    /// Apple's endpoints for the environment, with any overrides applied.
    public var apnsEnvironment: APNSEnvironment { endpoints(of: environment) }

    /// The environment besides the default one.
    public var otherEnvironment: PushEnvironment { environment == .production ? .sandbox : .production }

    /// Whether the other environment's tokens are pushed too: with a key, when the server talks
    /// to Apple (no `LIVELINE_APNS_HOST`) or the other environment has a server of its own
    /// configured. A server pointed at one other APNs-speaking server serves that one only.
    public var servesOtherEnvironment: Bool {
        servesBothEnvironments && hasKey && (host == nil || ownHost(of: otherEnvironment) != nil || ownPort(of: otherEnvironment) != nil)
    }

    /// The other environment's endpoints: Apple's, or its own overrides.
    public var otherAPNSEnvironment: APNSEnvironment { endpoints(of: otherEnvironment) }

    /// Apple's endpoints of `environment` with the overrides that apply to it: its own host,
    /// port and management port; for the default environment first `host`, `port`,
    /// `managementPort`, and `broadcastHost`; the CA file for both.
    private func endpoints(of environment: PushEnvironment) -> APNSEnvironment {
        let isDefault = environment == self.environment
        var base = environment == .production ? APNSEnvironment.production : APNSEnvironment.development
        if let host = (isDefault ? host : nil) ?? ownHost(of: environment) { base.device.host = host; base.management.host = host }
        if let port = (isDefault ? port : nil) ?? ownPort(of: environment) { base.device.port = port }
        if let port = (isDefault ? managementPort : nil) ?? ownManagementPort(of: environment) { base.management.port = port }
        // The CA file is for the servers put in Apple's place: an environment left on Apple's
        // keeps the system's trust (with no server overridden, the default one takes it).
        let overridden = (isDefault && host != nil) || ownHost(of: environment) != nil
        let anyOverridden = host != nil || developmentHost != nil || productionHost != nil
        if let caFile, overridden || (isDefault && !anyOverridden) { base.device.caFile = caFile; base.management.caFile = caFile }
        base.broadcast = base.device
        if isDefault, let broadcastHost { base.broadcast.host = broadcastHost }
        return base
    }

    private func ownHost(of environment: PushEnvironment) -> String? { environment == .production ? productionHost : developmentHost }
    private func ownPort(of environment: PushEnvironment) -> Int? { environment == .production ? productionPort : developmentPort }
    private func ownManagementPort(of environment: PushEnvironment) -> Int? {
        environment == .production ? productionManagementPort : developmentManagementPort
    }

    /// The credentials from the configured key file.
    public func credentials() throws -> APNSCredentials {
        guard let keyPath, let keyID, let teamID else {
            throw ConfigurationError("no APNs key configured: set LIVELINE_APNS_KEY_PATH, LIVELINE_APNS_KEY_ID and LIVELINE_APNS_TEAM_ID")
        }
        return try APNSCredentials(keyFile: URL(fileURLWithPath: keyPath), keyID: keyID, teamID: teamID)
    }
}
