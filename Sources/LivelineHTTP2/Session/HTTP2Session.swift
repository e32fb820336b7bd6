import CNGHTTP2
import Foundation

/// One HTTP/2 connection driven by nghttp2 on an event loop: reads bytes from the transport into
/// nghttp2, and writes what nghttp2 wants to send back out. Server and client connections subclass
/// it and receive nghttp2's callbacks as method calls. Confined to its loop's thread.
class HTTP2Session: EventLoop.Handler {
    enum State {
        /// After a GOAWAY: everything is written and the sending side shut; reading on until the
        /// peer closes (or a timeout), so that data still arriving does not make the kernel answer
        /// with a reset that would destroy the GOAWAY and the last responses at the peer.
        case handshaking, open, lingering, closed
    }

    let loop: EventLoop
    let transport: any Transport
    var session: OpaquePointer?
    private(set) var state = State.handshaking
    /// True while nghttp2 is calling back into us (then `nghttp2_session_mem_send` must wait).
    private(set) var inCallbacks = false
    /// Written on every pass of a busy connection, on the loop thread only and never by
    /// overlapping accesses: no run-time exclusivity checks (see `HTTP2ServerConnection.Stream`).
    @exclusivity(unchecked) private var output: [UInt8] = []
    private var outputOffset = 0
    private var watchingWrites = false
    @exclusivity(unchecked) private var readBuffer = [UInt8](repeating: 0, count: 32 * 1024)
    /// A close asked for while nghttp2 was calling us; done when it returns.
    private var pendingClose: String?

    /// Performs a close asked for during callbacks; true when the connection is now closed.
    private func closeIfRequested() -> Bool {
        guard let reason = pendingClose else { return false }
        pendingClose = nil
        close(reason: reason)
        return true
    }

    /// Close once everything queued has been written (after a GOAWAY).
    var closeAfterFlush = false

    init(loop: EventLoop, transport: any Transport) {
        self.loop = loop
        self.transport = transport
    }

    /// Creates the nghttp2 session (server or client) once the transport is ready.
    func makeSession() throws -> OpaquePointer { fatalError("subclass") }
    /// Called when the session is open (after the TLS handshake and the initial SETTINGS).
    func sessionOpened() {}
    /// Called once when the connection is gone, with why.
    func sessionClosed(reason: String) {}

    // nghttp2 callbacks, as methods.
    func beginHeaders(frame: UnsafePointer<nghttp2_frame>) {}
    /// A header field, as nghttp2's bytes (valid during the call only).
    func header(frame: UnsafePointer<nghttp2_frame>, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {}
    func frameReceived(_ frame: UnsafePointer<nghttp2_frame>) {}
    func dataChunk(streamID: Int32, bytes: UnsafeBufferPointer<UInt8>) {}
    func streamClosed(streamID: Int32, errorCode: UInt32) {}
    func readBody(streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, capacity: Int, flags: UnsafeMutablePointer<UInt32>) -> Int { 0 }

    /// Registers with the loop and starts the handshake. Call on the loop thread.
    func start() {
        loop.register(transport.fd, handler: self, writable: true)
        watchingWrites = true
        advance()
    }

    func ready(readable: Bool, writable: Bool, hangup: Bool) {
        if state == .lingering {
            drainLingering()
            return
        }
        advance()
        if hangup && state != .closed { close(reason: "the peer closed the connection") }
    }

    /// Moves the connection forward: handshake, then read everything available, then write.
    func advance() {
        switch state {
        case .closed, .lingering:
            return
        case .handshaking:
            switch transport.handshake() {
            case .wouldBlock:
                setWatchingWrites(transport.wantsWrite)
                return
            case .failed(let message):
                close(reason: message)
                return
            case .done:
                do {
                    session = try makeSession()
                } catch {
                    close(reason: "\(error)")
                    return
                }
                state = .open
                sessionOpened()
            }
        case .open:
            break
        }
        readAvailable()
        flush()
    }

    private func readAvailable() {
        while state == .open {
            let count: Int?
            do {
                count = try readBuffer.withUnsafeMutableBytes { try transport.read(into: $0) }
            } catch {
                close(reason: "\(error)")
                return
            }
            guard let count else { return }
            if count == 0 {
                close(reason: "the peer closed the connection")
                return
            }
            inCallbacks = true
            let consumed = readBuffer.withUnsafeBufferPointer { nghttp2_session_mem_recv(session, $0.baseAddress, count) }
            inCallbacks = false
            if closeIfRequested() { return }
            if consumed < 0 {
                // nghttp2 has queued a GOAWAY for protocol errors; send it, then close.
                closeAfterFlush = true
                flush()
                close(reason: "HTTP/2 protocol error: \(String(cString: nghttp2_strerror(Int32(consumed))))")
                return
            }
        }
    }

    /// Writes what nghttp2 has queued; watches for writability when the socket is full.
    func flush() {
        guard state == .open, !inCallbacks, let session else { return }
        while true {
            if outputOffset == output.count {
                output.removeAll(keepingCapacity: true)
                outputOffset = 0
                // Gather up to 64 KiB of frames before one write.
                while output.count < 64 * 1024 {
                    var data: UnsafePointer<UInt8>?
                    // mem_send calls back too (stream closed, body reads): same care as mem_recv.
                    inCallbacks = true
                    let length = nghttp2_session_mem_send(session, &data)
                    inCallbacks = false
                    if let reason = pendingClose {
                        // What nghttp2 returned belongs to the session about to be deleted.
                        pendingClose = nil
                        close(reason: reason)
                        return
                    }
                    if length < 0 {
                        close(reason: "nghttp2: \(String(cString: nghttp2_strerror(Int32(length))))")
                        return
                    }
                    guard length > 0, let data else { break }
                    output.append(contentsOf: UnsafeBufferPointer(start: data, count: length))
                }
                if output.isEmpty { break }
            }
            let written: Int
            do {
                written = try output.withUnsafeBytes { try transport.write(UnsafeRawBufferPointer(rebasing: $0[outputOffset...])) }
            } catch {
                close(reason: "\(error)")
                return
            }
            if written == 0 {
                setWatchingWrites(true)
                return
            }
            outputOffset += written
        }
        setWatchingWrites(false)
        if closeAfterFlush || (nghttp2_session_want_read(session) == 0 && nghttp2_session_want_write(session) == 0) {
            linger(reason: closeAfterFlush ? "closed after GOAWAY" : "the session ended")
        }
    }

    /// Shuts the sending side once all is written, then waits (at most `lingerSeconds`) for the
    /// peer to close before closing.
    private func linger(reason: String) {
        guard state == .open else { return }
        state = .lingering
        setWatchingWrites(false)
        transport.shutdownWrites()
        loop.schedule(after: Self.lingerSeconds) { [weak self] in self?.close(reason: reason) }
        drainLingering(reason: reason)
    }

    static let lingerSeconds = 2.0

    /// Reads and discards what the peer still sends; closes at its end of stream.
    private func drainLingering(reason: String = "closed after GOAWAY") {
        while state == .lingering {
            let count: Int?
            do {
                count = try readBuffer.withUnsafeMutableBytes { try transport.read(into: $0) }
            } catch {
                count = 0
            }
            guard let count else { return }  // would block: wait for more
            if count == 0 {
                close(reason: reason)
                return
            }
        }
    }

    private func setWatchingWrites(_ wanted: Bool) {
        guard wanted != watchingWrites, state != .closed else { return }
        watchingWrites = wanted
        loop.update(transport.fd, writable: wanted)
    }

    /// Closes the connection now (what is not written is lost).
    func close(reason: String) {
        guard state != .closed else { return }
        // Called from inside nghttp2 (a callback completing a request whose owner then closes the
        // connection): deleting the session now would pull it from under nghttp2. Close once
        // nghttp2 has returned.
        if inCallbacks {
            if pendingClose == nil { pendingClose = reason }
            return
        }
        state = .closed
        loop.unregister(transport.fd)
        transport.close()
        if let session { nghttp2_session_del(session) }
        session = nil
        sessionClosed(reason: reason)
    }

    /// Closes the connection and throws away what the kernel still holds to send (SO_LINGER 0:
    /// a reset instead of a FIN): for a connection given up as dead, whose requests go out again
    /// elsewhere, so that its unsent bytes do not reach the server once the path is back.
    func abort(reason: String) {
        guard state != .closed else { return }
        var linger = Glibc.linger(l_onoff: 1, l_linger: 0)
        _ = setsockopt(transport.fd, SOL_SOCKET, SO_LINGER, &linger, socklen_t(MemoryLayout<Glibc.linger>.size))
        close(reason: reason)
    }

    /// Submits a GOAWAY and closes once it is written. `lastStreamID` is the last stream the
    /// peer may consider processed (default: the last one handed to us); streams above it are
    /// "not processed", so a client may safely send them again elsewhere (RFC 9113 §6.8).
    func goAway(errorCode: UInt32, debugData: [UInt8] = [], lastStreamID: Int32? = nil) {
        guard state == .open, let session else { return }
        let last = lastStreamID ?? nghttp2_session_get_last_proc_stream_id(session)
        _ = debugData.withUnsafeBufferPointer {
            nghttp2_submit_goaway(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), last, errorCode, $0.baseAddress, $0.count)
        }
        closeAfterFlush = true
        flush()
    }
}
