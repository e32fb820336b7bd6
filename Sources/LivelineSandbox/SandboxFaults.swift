/// Faults the sandbox injects into push sends, all reproducible from `seed`.
///
/// The shares are drawn for each push that would otherwise be accepted (device or broadcast), in
/// the order the sandbox decides them: the n-th such push since `setFaults` gets the n-th draw of a
/// generator seeded with `seed`, so the same sequence of pushes meets the same faults. A faulted
/// push is not recorded as accepted. Stream counts are per connection on the push ports.
///
/// Related APNs documentation: "Handling notification responses from APNs" (`docs/apns.md` §1.6):
/// 500 `InternalServerError`, 503 `ServiceUnavailable`, 429 `TooManyRequests`; APNs may close a
/// connection with GOAWAY and `{"reason":"Shutdown"}` (§1.1).
public struct SandboxFaults: Sendable, Hashable {
    public var seed: UInt64
    /// Share (0…1) of pushes answered 500 `InternalServerError`.
    public var internalErrorShare: Double
    /// Share (0…1) answered 503 `ServiceUnavailable`.
    public var unavailableShare: Double
    /// Share (0…1) answered 429 `TooManyRequests`.
    public var tooManyRequestsShare: Double
    /// Every answer on the push ports is sent this much later, from another thread.
    public var latency: Duration?
    /// Answers on the channel management port are sent this much later instead (a management
    /// call that hangs: set it longer than the client waits); nil: `latency` there too.
    public var managementLatency: Duration?
    /// The N-th stream of each connection is answered 503 `Shutdown` and followed by GOAWAY with
    /// `{"reason":"Shutdown"}`, naming that stream as the last processed (later streams are
    /// refused, safe to retry).
    public var goAwayAfterStreams: Int?
    /// At the N-th stream of each connection the TCP connection is closed without an answer.
    public var dropConnectionAfterStreams: Int?

    public init(
        seed: UInt64 = 1, internalErrorShare: Double = 0, unavailableShare: Double = 0, tooManyRequestsShare: Double = 0,
        latency: Duration? = nil, managementLatency: Duration? = nil, goAwayAfterStreams: Int? = nil, dropConnectionAfterStreams: Int? = nil
    ) {
        self.seed = seed
        self.internalErrorShare = internalErrorShare
        self.unavailableShare = unavailableShare
        self.tooManyRequestsShare = tooManyRequestsShare
        self.latency = latency
        self.managementLatency = managementLatency
        self.goAwayAfterStreams = goAwayAfterStreams
        self.dropConnectionAfterStreams = dropConnectionAfterStreams
    }

    /// No faults.
    public static let none = SandboxFaults()
}
