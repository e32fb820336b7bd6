import Foundation
import LivelinePushWire

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
    /// A connection with requests (or a PING) outstanding that hears nothing from APNs for this
    /// long is PINGed, and closed when nothing comes for as long again; its requests are sent
    /// again on a new connection. A dead path (a partition) is noticed in about twice this, not
    /// after the kernel's many minutes of retransmitting; a peer that is only slow, or a machine
    /// so loaded that nothing ran for a while (test machines have seen 16 s), is not mistaken for
    /// one. 0 turns the check off.
    public var livenessTimeout: Double
    /// When set, a request is not sent, nor sent again after its connection failed, later than
    /// this many seconds after it was asked for: it is answered as unanswered (status 0, retry)
    /// instead. A caller that stops waiting for an answer after some time (the engine's
    /// dispatcher) sets a shorter one, so nothing it gave up on goes out later beside its own
    /// retry (a second start of a Live Activity).
    public var requestDeadline: TimeInterval?
    /// How often a request is sent again after its connection failed under it (same `apns-id`).
    public var connectionRetries: Int
    /// Time source for provider tokens and idle checks (tests move it forward).
    public var clock: @Sendable () -> Date

    public init(
        credentials: APNSCredentials, environment: APNSEnvironment, maxConnectionsPerEndpoint: Int = 2, connectTimeout: Double = 10,
        idlePingInterval: TimeInterval = 3600, livenessTimeout: Double = 15, connectionRetries: Int = 3,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.credentials = credentials
        self.environment = environment
        self.maxConnectionsPerEndpoint = maxConnectionsPerEndpoint
        self.connectTimeout = connectTimeout
        self.idlePingInterval = idlePingInterval
        self.livenessTimeout = livenessTimeout
        self.connectionRetries = connectionRetries
        self.requestDeadline = nil
        self.clock = clock
    }
}
