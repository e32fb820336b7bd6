import Foundation

/// One HTTP/2 client connection (TLS with ALPN `h2`, or h2c), safe to use from any thread: requests
/// are multiplexed as concurrent streams, at most as many as the server's
/// `SETTINGS_MAX_CONCURRENT_STREAMS` at once (nghttp2 holds the rest back until streams close).
public final class HTTP2ClientConnection: Sendable {
    public let host: String
    public let port: Int
    public let status = ConnectionStatus()
    private let loop: EventLoop
    private let session: SessionBox

    /// Starts connecting to `host:port` on `loop`. Requests sent before the handshake completes
    /// wait for it. With `tls`, the certificate is checked for `host`. With `livenessTimeout`, an
    /// open connection with requests in flight that hears nothing from the server for that long is
    /// PINGed, and closed when nothing comes for as long again (its requests fail as
    /// `.connectionLost`): a dead path is noticed in seconds, not after the kernel's minutes of
    /// retransmitting.
    public init(
        host: String, port: Int, tls: TLSContext?, loop: EventLoop, connectTimeout: Double = 10, livenessTimeout: Double? = nil,
        onClose: (@Sendable (String) -> Void)? = nil
    ) throws {
        self.host = host
        self.port = port
        self.loop = loop
        let connector = try TCPConnector(host: host, port: port)
        let transport: any Transport =
            if let tls {
                try TLSTransport(connector: connector, context: tls, serverName: host)
            } else {
                PlainTransport(connector: connector)
            }
        let authority = port == 443 ? host : "\(host):\(port)"
        let session = HTTP2ClientSession(loop: loop, transport: transport, authority: authority, secure: tls != nil, status: status)
        session.onClose = onClose
        session.livenessTimeout = livenessTimeout
        self.session = SessionBox(session)
        loop.execute { [box = self.session] in
            box.session.start()
            loop.schedule(after: connectTimeout) { box.session.handshakeTimedOut(after: connectTimeout) }
        }
    }

    /// Sends `request`; `completion` runs once, on the connection's loop thread (keep it short).
    public func send(_ request: HTTP2ClientRequest, completion: @escaping @Sendable (Result<HTTP2ClientResponse, HTTP2ClientFailure>) -> Void) {
        loop.execute { [session] in session.session.send(request, completion: completion) }
    }

    /// Sends `request` and waits for its response.
    public func send(_ request: HTTP2ClientRequest) async throws(HTTP2ClientFailure) -> HTTP2ClientResponse {
        let result = await withCheckedContinuation { continuation in
            send(request) { continuation.resume(returning: $0) }
        }
        return try result.get()
    }

    /// Sends a PING; `done` gets whether the ACK came back.
    public func ping(_ done: @escaping @Sendable (Bool) -> Void) {
        loop.execute { [session] in session.session.ping(done) }
    }

    /// Closes the connection; requests in flight fail with `.connectionLost`.
    public func close() {
        loop.execute { [session] in session.session.close(reason: "closed by the client") }
    }

    /// Whether new requests may be sent: open or still connecting, and no GOAWAY received.
    public var isUsable: Bool {
        let state = status.snapshot
        return !state.closed && !state.goingAway
    }
}

/// Carries the loop-confined session across threads; only dereferenced on its loop.
final class SessionBox: @unchecked Sendable {
    let session: HTTP2ClientSession
    init(_ session: HTTP2ClientSession) { self.session = session }
}
