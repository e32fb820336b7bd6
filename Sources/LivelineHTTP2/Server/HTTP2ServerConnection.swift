import CNGHTTP2
import Foundation

/// The server side of one HTTP/2 connection: gathers each stream's request, hands it to the
/// handler when the stream ends, and sends the response back.
final class HTTP2ServerConnection: HTTP2Session {
    /// A request being received.
    final class Stream {
        var method = ""
        var path = ""
        var authority: String?
        var headers: [(name: String, value: String)] = []
        var body: [UInt8] = []
    }

    let id: UInt64
    private let server: HTTP2Server
    private let owner: LoopState
    private var streams: [Int32: Stream] = [:]
    /// Response bodies waiting for nghttp2 to read them.
    private var bodies: [Int32: (bytes: [UInt8], offset: Int)] = [:]

    init(id: UInt64, state: LoopState, transport: any Transport, server: HTTP2Server) {
        self.id = id
        self.server = server
        self.owner = state
        super.init(loop: state.loop, transport: transport)
    }

    override func makeSession() throws -> OpaquePointer {
        var option: OpaquePointer?
        nghttp2_option_new(&option)
        defer { nghttp2_option_del(option) }
        // libcurl sends RST_STREAM(NO_ERROR) after every headers-only response (APNs' 200), which
        // trips the "rapid reset" limiter Debian backported into libnghttp2 (CVE-2023-44487) after
        // about 1,000 requests. APNs clients do this legitimately, so the limit is raised here.
        nghttp2_option_set_stream_reset_rate_limit(option, 1_000_000, 100_000)
        var session: OpaquePointer?
        let result = nghttp2_session_server_new2(&session, sessionCallbacks, Unmanaged.passUnretained(self).toOpaque(), option)
        guard result == 0, let session else { throw HTTP2Error("nghttp2_session_server_new2: \(result)") }
        var settings = [
            nghttp2_settings_entry(
                settings_id: Int32(NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS.rawValue), value: server.configuration.maxConcurrentStreams),
            nghttp2_settings_entry(settings_id: Int32(NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE.rawValue), value: 1 << 20),
        ]
        nghttp2_submit_settings(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), &settings, settings.count)
        // A larger connection window than the 64 KiB default, so many concurrent pushes never wait.
        nghttp2_session_set_local_window_size(session, UInt8(NGHTTP2_FLAG_NONE.rawValue), 0, 16 << 20)
        return session
    }

    override func sessionClosed(reason: String) {
        streams.removeAll()
        bodies.removeAll()
        owner.connections[ObjectIdentifier(self)] = nil
        server.connectionEnded(self)
    }

    override func beginHeaders(frame: UnsafePointer<nghttp2_frame>) {
        guard frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
            frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST
        else { return }
        streams[frame.pointee.hd.stream_id] = Stream()
    }

    override func header(frame: UnsafePointer<nghttp2_frame>, name: String, value: String) {
        guard let stream = streams[frame.pointee.hd.stream_id] else { return }
        switch name {
        case ":method": stream.method = value
        case ":path": stream.path = value
        case ":authority": stream.authority = value
        case ":scheme": break
        default: stream.headers.append((name, value))
        }
    }

    override func dataChunk(streamID: Int32, bytes: UnsafeBufferPointer<UInt8>) {
        guard let stream = streams[streamID] else { return }
        let room = server.configuration.maxRequestBodyBytes + 1 - stream.body.count
        if room > 0 { stream.body.append(contentsOf: bytes.prefix(room)) }
    }

    override func frameReceived(_ frame: UnsafePointer<nghttp2_frame>) {
        let type = frame.pointee.hd.type
        guard type == UInt8(NGHTTP2_HEADERS.rawValue) || type == UInt8(NGHTTP2_DATA.rawValue),
            frame.pointee.hd.flags & UInt8(NGHTTP2_FLAG_END_STREAM.rawValue) != 0
        else { return }
        let streamID = frame.pointee.hd.stream_id
        guard let stream = streams.removeValue(forKey: streamID) else { return }
        let request = HTTP2Request(
            method: stream.method, path: stream.path, authority: stream.authority, headers: stream.headers,
            body: stream.body, connectionID: id, streamID: streamID
        )
        let loop = self.loop
        let reference = ConnectionReference(self)
        server.handler.handle(request) { response in
            loop.execute { reference.connection?.submit(response, streamID: streamID) }
        }
    }

    override func streamClosed(streamID: Int32, errorCode: UInt32) {
        streams[streamID] = nil
        bodies[streamID] = nil
    }

    override func readBody(streamID: Int32, into buffer: UnsafeMutablePointer<UInt8>, capacity: Int, flags: UnsafeMutablePointer<UInt32>) -> Int {
        guard let pending = bodies[streamID] else {
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
            return 0
        }
        let count = min(capacity, pending.bytes.count - pending.offset)
        pending.bytes.withUnsafeBufferPointer { source in
            buffer.update(from: source.baseAddress! + pending.offset, count: count)
        }
        if pending.offset + count == pending.bytes.count {
            bodies[streamID] = nil
            flags.pointee |= NGHTTP2_DATA_FLAG_EOF.rawValue
        } else {
            bodies[streamID] = (pending.bytes, pending.offset + count)
        }
        return count
    }

    /// Queues `response` on `streamID`; on the loop thread.
    func submit(_ response: HTTP2Response, streamID: Int32) {
        guard state == .open, let session else { return }
        if case .drop = response.then {
            close(reason: "dropped by the handler")
            return
        }
        var fields: [(String, String)] = [(":status", String(response.status))]
        fields += response.headers.map { ($0.name, $0.value) }
        var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: readBodyCallback)
        if let body = response.body { bodies[streamID] = (body, 0) }
        let result = withHeaderFields(fields) { nva in
            if response.body != nil {
                return nghttp2_submit_response(session, streamID, nva.baseAddress, nva.count, &provider)
            }
            return nghttp2_submit_response(session, streamID, nva.baseAddress, nva.count, nil)
        }
        if result != 0 { bodies[streamID] = nil }
        if case .goAway(let code, let debugData) = response.then {
            // The stream answered is the last one processed: streams the client opened after it
            // (already received, not yet answered) are "not processed" and safe to retry.
            goAway(errorCode: code, debugData: debugData, lastStreamID: streamID)
        } else {
            flush()
        }
    }
}

/// A weak reference to a connection that may cross threads; it is only dereferenced on the
/// connection's loop thread.
final class ConnectionReference: @unchecked Sendable {
    weak var connection: HTTP2ServerConnection?
    init(_ connection: HTTP2ServerConnection) { self.connection = connection }
}

/// Calls `body` with nghttp2 name/value pairs pointing at copies of `fields` (nghttp2 copies
/// them again while submitting, so they only need to live during the call).
func withHeaderFields<R>(_ fields: [(String, String)], _ body: (UnsafeMutableBufferPointer<nghttp2_nv>) -> R) -> R {
    var storage: [UInt8] = []
    var ranges: [(Int, Int, Int, Int)] = []
    for (name, value) in fields {
        let nameStart = storage.count
        storage.append(contentsOf: name.utf8)
        let valueStart = storage.count
        storage.append(contentsOf: value.utf8)
        ranges.append((nameStart, valueStart - nameStart, valueStart, storage.count - valueStart))
    }
    return storage.withUnsafeMutableBufferPointer { bytes in
        var nva = ranges.map { range in
            nghttp2_nv(
                name: bytes.baseAddress! + range.0, value: bytes.baseAddress! + range.2,
                namelen: range.1, valuelen: range.3, flags: UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)
            )
        }
        return nva.withUnsafeMutableBufferPointer { body($0) }
    }
}
