import Foundation
import LivelineCrypto
import LivelineHTTP2
import LivelinePushWire
import Synchronization

/// One HTTP/2 connection to an APNs endpoint, with the rules APNs sets for it:
///
/// - the first request goes alone until APNs answered it (with token auth, only one stream is
///   allowed until a request with a valid token succeeds — docs/apns.md §1.1);
/// - the provider token may change at most once per 20 minutes on a connection (docs/apns.md §1.4);
///   a connection that would need to switch sooner retires and a new one takes over.
final class APNSConnection: Sendable {
    enum Phase {
        case fresh, probing, open
    }

    struct State {
        var phase = Phase.fresh
        var waiting: [@Sendable () -> Void] = []
        var token: String?
        var tokenSince: Date?
        var retiring = false
        var lastUsed: Date
    }

    static let tokenSwitchInterval: TimeInterval = 20 * 60

    let http: HTTP2ClientConnection
    let endpoint: APNSEndpoint
    private let state: Mutex<State>

    init(endpoint: APNSEndpoint, loop: EventLoop, connectTimeout: Double, livenessTimeout: Double, now: Date) throws {
        let tls = try TLSContext.client(caFile: endpoint.caFile)
        self.endpoint = endpoint
        self.http = try HTTP2ClientConnection(
            host: endpoint.host, port: endpoint.port, tls: tls, loop: loop, connectTimeout: connectTimeout,
            livenessTimeout: livenessTimeout > 0 ? livenessTimeout : nil)
        self.state = Mutex(State(lastUsed: now))
    }

    /// Open, not retired, no GOAWAY received.
    var isUsable: Bool { http.isUsable && !state.withLock { $0.retiring } }

    /// Streams in flight plus requests waiting for the first answer.
    var load: Int { http.status.snapshot.inFlight + state.withLock { $0.waiting.count } }

    /// Whether the connection is full: as many streams in flight as the server allows.
    var isFull: Bool {
        let status = http.status.snapshot
        return status.inFlight >= Int(status.remoteMaxConcurrentStreams)
    }

    /// Whether `token` may be used here now (a first token, the same token, or a switch 20
    /// minutes or more after the last one).
    func accepts(_ token: ProviderToken, now: Date) -> Bool {
        state.withLock { state in
            guard let current = state.token, current != token.compact, let since = state.tokenSince else { return true }
            return now.timeIntervalSince(since) >= Self.tokenSwitchInterval
        }
    }

    /// Runs `send` when a request may go: at once, or after the connection's first answer.
    /// `send` gets whether it is that first request (then it must call `firstAnswered()`).
    func whenReady(token: ProviderToken, now: Date, _ send: @escaping @Sendable (_ isFirst: Bool) -> Void) {
        let action: (@Sendable () -> Void)? = state.withLock { state in
            state.lastUsed = now
            if state.token != token.compact {
                state.token = token.compact
                state.tokenSince = now
            }
            switch state.phase {
            case .fresh:
                state.phase = .probing
                return { send(true) }
            case .probing:
                state.waiting.append { send(false) }
                return nil
            case .open:
                return { send(false) }
            }
        }
        action?()
    }

    /// The first request was answered: let the waiting ones go.
    func firstAnswered() {
        let waiting = state.withLock { state -> [@Sendable () -> Void] in
            state.phase = .open
            defer { state.waiting = [] }
            return state.waiting
        }
        waiting.forEach { $0() }
    }

    /// No new requests go here; it closes when nothing is in flight.
    func retire() {
        state.withLock { $0.retiring = true }
        if http.status.snapshot.inFlight == 0 { http.close() }
    }

    /// When it last sent.
    var lastUsed: Date { state.withLock { $0.lastUsed } }
}
