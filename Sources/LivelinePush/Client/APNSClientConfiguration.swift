import Foundation

/// How an `APNSClient` connects and authenticates.
public struct APNSClientConfiguration: Sendable {
    public var credentials: APNSCredentials
    public var environment: APNSEnvironment
    /// Most connections per endpoint (Apple: several connections add throughput; avoid bursts on few).
    public var maxConnectionsPerEndpoint: Int
    /// Seconds to wait for a TCP + TLS connection.
    public var connectTimeout: Double
    /// A connection idle this long is checked with an HTTP/2 PING (Apple: about an hour).
    public var idlePingInterval: TimeInterval
    /// How often a request is sent again after its connection failed under it (same `apns-id`).
    public var connectionRetries: Int
    /// Time source for provider tokens and idle checks (tests move it forward).
    public var clock: @Sendable () -> Date

    public init(
        credentials: APNSCredentials, environment: APNSEnvironment, maxConnectionsPerEndpoint: Int = 2, connectTimeout: Double = 10,
        idlePingInterval: TimeInterval = 3600, connectionRetries: Int = 3, clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.credentials = credentials
        self.environment = environment
        self.maxConnectionsPerEndpoint = maxConnectionsPerEndpoint
        self.connectTimeout = connectTimeout
        self.idlePingInterval = idlePingInterval
        self.connectionRetries = connectionRetries
        self.clock = clock
    }
}
