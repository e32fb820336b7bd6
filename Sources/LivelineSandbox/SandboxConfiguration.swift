import Foundation

/// How an `APNSSandbox` listens and what it knows at start.
public struct SandboxConfiguration: Sendable {
    /// IPv4 address every port binds.
    public var host: String
    /// Port of device pushes (`/3/device/…`) and broadcast sends; 0 picks a free one.
    public var devicePort: Int
    /// Port of the channel management API (`/1/apps/…`); it also takes broadcast sends. 0 picks one.
    public var managementPort: Int
    /// Port of the JSON HTTP/1.1 control API; nil runs none, 0 picks one.
    public var controlPort: Int?
    /// Port of the Web Push service (`APNSSandbox.webPush`, HTTP/1.1); 0 picks a free one.
    public var webPushPort: Int
    /// Where the TLS certificate (`cert.pem`, `key.pem`) and the provider key
    /// (`AuthKey_<keyID>.p8`) live; made on first start, reused later.
    public var folder: URL
    /// The app whose topics are allowed from the start.
    public var bundleID: String
    /// Team of the generated key (the JWT's `iss`).
    public var teamID: String
    /// Key ID of the generated key (the JWT's `kid`).
    public var keyID: String
    public var environment: SandboxEnvironment
    /// `SETTINGS_MAX_CONCURRENT_STREAMS` of the push ports.
    public var maxConcurrentStreams: UInt32
    /// Accepts pushes to tokens nobody registered (well-formed ones), for ad-hoc use and benchmarks.
    /// Registered tokens keep their rules (410, other topic).
    public var acceptAnyToken: Bool
    /// Event-loop threads of the device port.
    public var threads: Int
    /// Channels one app may have at once in this environment.
    public var channelQuota: Int
    /// The most accepted pushes kept per token or channel, and in all (the oldest go first); nil
    /// keeps every one (tests that look at a whole history). A server's in-process sandbox and
    /// `liveline sandbox` (unless `--keep all`) set ``boundedKept``: one left running would
    /// otherwise grow without limit.
    public var acceptedKept: (perTarget: Int, total: Int)?
    /// Enough history for any test or demo, flat memory under a benchmark's millions of pushes.
    public static let boundedKept = (perTarget: 1000, total: 100_000)
    /// The sandbox's idea of now: `iat` age, 410 timestamps, token update spacing, `receivedAt`
    /// (of the Web Push service too, and VAPID `exp`).
    public var clock: @Sendable () -> Date

    public init(
        folder: URL, host: String = "127.0.0.1", devicePort: Int = 0, managementPort: Int = 0, controlPort: Int? = nil,
        webPushPort: Int = 0, bundleID: String = "dev.liveline.demo", teamID: String = "LLTEAM0001", keyID: String = "LLKEY00001",
        environment: SandboxEnvironment = .development, maxConcurrentStreams: UInt32 = 1000, acceptAnyToken: Bool = false,
        threads: Int = 2, channelQuota: Int = 10_000, clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.folder = folder
        self.host = host
        self.devicePort = devicePort
        self.managementPort = managementPort
        self.controlPort = controlPort
        self.webPushPort = webPushPort
        self.bundleID = bundleID
        self.teamID = teamID
        self.keyID = keyID
        self.environment = environment
        self.maxConcurrentStreams = maxConcurrentStreams
        self.acceptAnyToken = acceptAnyToken
        self.threads = threads
        self.channelQuota = channelQuota
        self.clock = clock
        self.acceptedKept = nil
    }
}
