import CNGHTTP2
import Foundation

/// The client side of one HTTP/2 connection, confined to its loop thread; `HTTP2ClientConnection`
/// is its thread-safe face.
final class HTTP2ClientSession: HTTP2Session {
    typealias Completion = @Sendable (Result<HTTP2ClientResponse, HTTP2ClientFailure>) -> Void

    final class Exchange {
        let completion: Completion
        var status = 0
        var headers: [(name: String, value: String)] = []
        var body: [UInt8] = []
        var hadData = false
        var requestBody: [UInt8]?
        var requestOffset = 0
        init(completion: @escaping Completion, requestBody: [UInt8]?) {
            self.completion = completion
            self.requestBody = requestBody
        }
    }

    private let authority: String
    private let scheme: String
    /// Requests waiting for the session to open.
    private var waiting: [(HTTP2ClientRequest, Completion)] = []
    private var exchanges: [Int32: Exchange] = [:]
    private var goAwayDebugData: [UInt8]?
    private var pingWaiters: [@Sendable (Bool) -> Void] = []
    let status: ConnectionStatus
    var onClose: (@Sendable (String) -> Void)?
    /// Seconds a connection with requests or a PING outstanding may hear nothing from the server
    /// before it is PINGed, and as long again for any frame before it is closed; nil: no check.
    var livenessTimeout: Double?
    /// When the server was last heard from (a frame), in uptime nanoseconds.
    private var lastHeard = DispatchTime.now().uptimeNanoseconds
    /// When the liveness check sent its PING, while it waits for any frame.
    private var probeSentAt: UInt64?

    init(loop: EventLoop, transport: any Transport, authority: String, secure: Bool, status: ConnectionStatus) {
        self.authority = authority
        self.scheme = secure ? "https" : "http"
        self.status = status
        super.init(loop: loop, transport: transport)
    }

    override func makeSession() throws -> OpaquePointer {
        var session: OpaquePointer?
        let result = nghttp2_session_client_new(&session, sessionCallbacks, Unmanaged.passUnretained(self).toOpaque())
        guard result == 0, let session else { throw HTTP2Error("nghttp2_session_client_new: \(result)") }
        var settings = [
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_ENABLE_PUSH.rawValue), value: 0),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: 1 << 20),
        ]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, 16 << 20)
        return session
    }

    /// Whether the handshake ever completed.
    private var opened = false
    /// Why the connection closed, once it has.
    private var closeReason: String?

    override func sessionOpened() {
        opened = true
        lastHeard = DispatchTime.now().uptimeNanoseconds
        scheduleLivenessCheck()
    }

    // MARK: Liveness

    /// A TCP connection whose path went dead (a partition, a peer gone without a FIN or RST)
    /// stays established for many minutes while the kernel retransmits: requests on it would wait
    /// that long. So while something is outstanding (a stream, a PING) and nothing was heard for
    /// `livenessTimeout`, a PING goes out; a server that is alive answers it at once (RFC 9113
    /// §6.7) even when its responses are slow. Nothing heard for as long again closes the
    /// connection, discarding what the kernel still had to send (so it cannot reach the server
    /// after the path heals): its requests fail as lost (`.connectionLost`) and the caller sends
    /// them again on a new one, or reports them unanswered.
    private func scheduleLivenessCheck() {
        guard let timeout = livenessTimeout, timeout > 0 else { return }
        nextCheck = DispatchTime.now().uptimeNanoseconds + UInt64(timeout / 4 * 1e9)
        loop.schedule(after: timeout / 4) { [weak self] in self?.checkLiveness() }
    }

    /// When the next check is due.
    private var nextCheck: UInt64 = 0

    private func checkLiveness() {
        guard state == .open, let timeout = livenessTimeout, let session else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        let limit = UInt64(timeout * 1e9)
        // This process did not run for a while (a loaded or paused machine): the server may have
        // answered meanwhile unread. The silence so far is not held against it.
        let late = now > nextCheck + limit / 2
        defer { scheduleLivenessCheck() }
        if late {
            lastHeard = now
            if probeSentAt != nil { probeSentAt = now }
            return
        }
        guard !exchanges.isEmpty || !pingWaiters.isEmpty || probeSentAt != nil else { return }
        if let sentAt = probeSentAt {
            if now - sentAt >= limit {
                abort(reason: "nothing heard from \(authority) for \(Int(Double(now - lastHeard) / 1e9)) s, not even a PING's answer")
            }
            return
        }
        guard now - lastHeard >= limit else { return }
        probeSentAt = now
        nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
        flush()
    }

    /// Requests wait for the server's first SETTINGS, so the first burst already respects its
    /// stream limit (instead of being refused and sent again).
    private var settingsReceived = false

    private func serverSettingsArrived() {
        guard !settingsReceived else { return }
        settingsReceived = true
        status.update { $0.open = true }
        let queued = waiting
        waiting = []
        for (request, completion) in queued { send(request, completion: completion) }
    }

    /// Sends `request`; `completion` runs once, on the loop thread.
    func send(_ request: HTTP2ClientRequest, completion: @escaping Completion) {
        switch state {
        case .handshaking:
            waiting.append((request, completion))
            return
        case .open where !settingsReceived:
            waiting.append((request, completion))
            return
        case .closed, .lingering:
            completion(
                .failure(
                    HTTP2ClientFailure(
                        kind: opened ? .notProcessed : .connectFailed, message: "no connection: \(closeReason ?? "closed")",
                        goAwayDebugData: goAwayDebugData
                    )))
            return
        case .open:
            break
        }
        if let notAfter = request.notAfter, ContinuousClock.now > notAfter {
            completion(.failure(HTTP2ClientFailure(kind: .notProcessed, message: "not sent: it waited for the connection past its deadline")))
            return
        }
        if goAwayDebugData != nil || status.snapshot.goingAway {
            completion(.failure(HTTP2ClientFailure(kind: .notProcessed, message: "the server sent GOAWAY", goAwayDebugData: goAwayDebugData)))
            return
        }
        let exchange = Exchange(completion: completion, requestBody: request.body)
        var fields: [(String, String)] = [
            (":method", request.method), (":scheme", scheme), (":authority", request.authority ?? authority), (":path", request.path),
        ]
        fields += request.headers.map { ($0.name, $0.value) }
        var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: readBodyCallback)
        let streamID = withHeaderFields(fields) { nva in
            request.body == nil
                ? nghttp2_submit_request(session, nil, nva.baseAddress, nva.count, nil, nil)
                : nghttp2_submit_request(session, nil, nva.baseAddress, nva.count, &provider, nil)
        }
        guard streamID > 0 else {
            completion(
                .failure(HTTP2ClientFailure(kind: .notProcessed, message: "nghttp2_submit_request: \(String(cString: nghttp2_strerror(streamID)))")))
            return
        }
        exchanges[streamID] = exchange
        status.update { $0.inFlight += 1 }
        flush()
    }

    /// Closes the connection if the handshake has not finished by now.
    func handshakeTimedOut(after seconds: Double) {
        if state == .handshaking || (state == .open && !settingsReceived) {
            close(reason: "timed out after \(seconds) s connecting to \(authority)")
        }
    }

    /// Sends a PING; `done` gets whether its ACK came back before the connection closed.
    func ping(_ done: @escaping @Sendable (Bool) -> Void) {
        guard state == .open, let session else { return done(false) }
        pingWaiters.append(done)
        nghttp2_submit_ping(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), nil)
        flush()
    }

    override func header(frame: UnsafePointer<nghttp2_frame>, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        guard let exchange = exchanges[frame.pointee.hd.stream_id] else { return }
        let name = String(decoding: name, as: UTF8.self)
        let value = String(decoding: value, as: UTF8.self)
        if name == ":status" {
            exchange.status = Int(value) ?? 0
        } else {
            exchange.headers.append((name, value))
        }
    }

    override func dataChunk(streamID: Int32, bytes: UnsafeBufferPointer<UInt8>) {
        lastHeard = DispatchTime.now().uptimeNanoseconds
        guard let exchange = exchanges[streamID] else { return }
        exchange.hadData = true
        exchange.body.append(contentsOf: bytes)
    }

    override func frameReceived(_ frame: UnsafePointer<nghttp2_frame>) {
        lastHeard = DispatchTime.now().uptimeNanoseconds
        probeSentAt = nil
        switch UInt32(frame.pointee.hd.type) {
        case NGHTTP2_SETTINGS.rawValue where frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) == 0:
            if let session {
                let limit = nghttp2_session_get_remote_settings(session, NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS)
                status.update { $0.remoteMaxConcurrentStreams = limit }
            }
            serverSettingsArrived()
        case NGHTTP2_GOAWAY.rawValue:
            let goAway = frame.pointee.goaway
            goAwayDebugData =
                goAway.opaque_data_len > 0 && goAway.opaque_data != nil
                ? Array(UnsafeBufferPointer(start: goAway.opaque_data, count: goAway.opaque_data_len)) : []
            status.update { $0.goingAway = true }
        case NGHTTP2_PING.rawValue where frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_ACK.rawValue) != 0:
            // The liveness probe's ACK may come first: any ACK shows the connection alive.
            if !pingWaiters.isEmpty { pingWaiters.removeFirst()(true) }
        default:
            break
        }
    }

    override func streamClosed(streamID: Int32, errorCode: UInt32) {
        guard let exchange = exchanges.removeValue(forKey: streamID) else { return }
        status.update { $0.inFlight -= 1 }
        if exchange.status != 0 && errorCode == NGHTTP2_NO_ERROR.rawValue {
            exchange.completion(
                .success(
                    HTTP2ClientResponse(status: exchange.status, headers: exchange.headers, body: exchange.body, hadDataFrames: exchange.hadData)))
        } else if errorCode == NGHTTP2_REFUSED_STREAM.rawValue {
            exchange.completion(
                .failure(HTTP2ClientFailure(kind: .notProcessed, message: "the server refused the stream", goAwayDebugData: goAwayDebugData)))
        } else {
            exchange.completion(
                .failure(
                    HTTP2ClientFailure(kind: .streamReset(errorCode), message: "stream reset: \(String(cString: nghttp2_http2_strerror(errorCode)))"))
            )
        }
    }

    override func readBody(streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, capacity: Int, flags: UnsafeMutablePointer<UInt32>) -> Int {
        guard let exchange = exchanges[streamID], let body = exchange.requestBody else {
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            return 0
        }
        let count = min(capacity, body.count - exchange.requestOffset)
        body.withUnsafeBufferPointer { buffer.update(from: $0.baseAddress! + exchange.requestOffset, count: count) }
        exchange.requestOffset += count
        if exchange.requestOffset == body.count {
            exchange.requestBody = nil
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
        }
        return count
    }

    override func sessionClosed(reason: String) {
        closeReason = reason
        status.update {
            $0.open = false
            $0.closed = true
            $0.inFlight = 0
        }
        let lost = exchanges
        exchanges = [:]
        for exchange in lost.values {
            exchange.completion(
                .failure(
                    HTTP2ClientFailure(
                        kind: .connectionLost, message: "the connection closed with the request in flight: \(reason)",
                        goAwayDebugData: goAwayDebugData)))
        }
        for (_, completion) in waiting {
            completion(
                .failure(
                    HTTP2ClientFailure(
                        kind: opened ? .notProcessed : .connectFailed, message: "no connection: \(reason)", goAwayDebugData: goAwayDebugData)))
        }
        waiting = []
        for waiter in pingWaiters { waiter(false) }
        pingWaiters = []
        onClose?(reason)
    }
}
