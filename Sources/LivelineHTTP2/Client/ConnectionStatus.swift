import Synchronization

/// What other threads may read about a client connection without going to its loop thread.
public final class ConnectionStatus: Sendable {
    public struct Snapshot: Sendable, Hashable {
        /// Handshake done, not closed.
        public var open = false
        public var closed = false
        /// The server sent GOAWAY: no new requests on this connection.
        public var goingAway = false
        /// Streams in flight.
        public var inFlight = 0
        /// The server's SETTINGS_MAX_CONCURRENT_STREAMS (nghttp2 holds further requests back).
        public var remoteMaxConcurrentStreams: UInt32 = 100
    }

    private let state = Mutex(Snapshot())

    public var snapshot: Snapshot { state.withLock { $0 } }

    func update(_ change: (inout Snapshot) -> Void) { state.withLock { change(&$0) } }
}
