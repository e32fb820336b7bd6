import CNGHTTP2
import Foundation

/// The server side of one HTTP/2 connection: gathers each stream's request, hands it to the
/// handler when the stream ends, and sends the response back.
final class HTTP2ServerConnection: HTTP2Session {
    /// A request being received.
    ///
    /// Its properties, and the connection's below that are marked so, are touched several times
    /// per request, on the loop thread only and never by overlapping accesses: they go without
    /// Swift's run-time exclusivity checks (`@exclusivity(unchecked)`), which cost more than the
    /// work itself there.
    final class Stream {
        @exclusivity(unchecked) var method = ""
        @exclusivity(unchecked) var path = ""
        @exclusivity(unchecked) var authority: String?
        @exclusivity(unchecked) var headers: [(name: String, value: String)] = []
        @exclusivity(unchecked) var body: [UInt8] = []

        init() {
            // Room for a typical request's fields at once (an APNs push has 5 to 9), not 4 regrowths.
            headers.reserveCapacity(8)
        }
    }

    let id: UInt64
    private let server: HTTP2Server
    private let owner: LoopState
    @exclusivity(unchecked) private var streams: [Int32: Stream] = [:]
    /// The stream whose header block is being received: a block's HEADERS and CONTINUATION frames
    /// come in one piece (RFC 9113 §6.10), so its fields need no lookup each, and its DATA often
    /// follows at once.
    @exclusivity(unchecked) private var current: (id: Int32, stream: Stream)?
    /// Response bodies waiting for nghttp2 to read them.
    @exclusivity(unchecked) private var bodies: [Int32: (bytes: [UInt8], offset: Int)] = [:]
    /// Strings of the fields received last, reused when the same bytes come again.
    @exclusivity(unchecked) private var recentFields = RecentHeaderFields()
    /// Handed to every respond closure (one allocation per connection, not per request).
    private lazy var reference = ConnectionReference(self)
    /// Reused for each response's header fields (see `submit`).
    @exclusivity(unchecked) private var fieldBytes: [UInt8] = []
    @exclusivity(unchecked) private var fieldList: [nghttp2_nv] = []

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
        current = nil
        bodies.removeAll()
        owner.connections[ObjectIdentifier(self)] = nil
        server.connectionEnded(self)
    }

    override func beginHeaders(frame: UnsafePointer<nghttp2_frame>) {
        recentFields.startBlock()
        guard frame.pointee.hd.type == UInt8(NGHTTP2_HEADERS.rawValue),
            frame.pointee.headers.cat == NGHTTP2_HCAT_REQUEST
        else { return }
        let stream = Stream()
        streams[frame.pointee.hd.stream_id] = stream
        current = (frame.pointee.hd.stream_id, stream)
    }

    /// The stream being received as `streamID`, if any.
    private func stream(_ streamID: Int32) -> Stream? {
        if let current, current.id == streamID { return current.stream }
        return streams[streamID]
    }

    override func header(frame: UnsafePointer<nghttp2_frame>, name: UnsafeBufferPointer<UInt8>, value: UnsafeBufferPointer<UInt8>) {
        guard let stream = stream(frame.pointee.hd.stream_id) else { return }
        if name.first == UInt8(ascii: ":") {
            if Self.equal(name, ":method") {
                stream.method = recentFields.method(value)
                return
            } else if Self.equal(name, ":path") {
                stream.path = recentFields.path(value)
                return
            } else if Self.equal(name, ":authority") {
                stream.authority = recentFields.authority(value)
                return
            } else if Self.equal(name, ":scheme") {
                return
            }
        }
        stream.headers.append(recentFields.field(name: name, value: value))
    }

    /// Whether `bytes` are `text`'s.
    private static func equal(_ bytes: UnsafeBufferPointer<UInt8>, _ text: StaticString) -> Bool {
        guard bytes.count == text.utf8CodeUnitCount, let start = bytes.baseAddress else { return false }
        return memcmp(start, text.utf8Start, bytes.count) == 0
    }

    override func dataChunk(streamID: Int32, bytes: UnsafeBufferPointer<UInt8>) {
        guard let stream = stream(streamID) else { return }
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
        if current?.id == streamID { current = nil }
        let request = HTTP2Request(
            method: stream.method, path: stream.path, authority: stream.authority, headers: stream.headers,
            body: stream.body, connectionID: id, streamID: streamID
        )
        let loop = self.loop
        let reference = self.reference
        server.handler.handle(request) { response in
            // Answered on the loop thread (most handlers answer at once): no task to queue.
            if loop.inLoop {
                reference.connection?.submit(response, streamID: streamID)
            } else {
                loop.execute { reference.connection?.submit(response, streamID: streamID) }
            }
        }
    }

    override func streamClosed(streamID: Int32, errorCode: UInt32) {
        // A stream that ended normally was taken out at its END_STREAM; one reset before has not.
        if !streams.isEmpty, streams.removeValue(forKey: streamID) != nil, current?.id == streamID { current = nil }
        if !bodies.isEmpty { bodies[streamID] = nil }
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
        var provider = nghttp2_data_provider(source: nghttp2_data_source(ptr: nil), read_callback: readBodyCallback)
        if let body = response.body { bodies[streamID] = (body, 0) }
        let result = withResponseFields(response) { nva in
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

extension HTTP2ServerConnection {
    /// Calls `body` with nghttp2 name/value pairs for `:status` and `response`'s headers, in this
    /// connection's reused buffers (nghttp2 copies them while submitting). Like
    /// `withHeaderFields`, without three allocations per response.
    /// Appends `text`'s UTF-8 to `bytes` in one copy.
    private static func append(_ text: String, to bytes: inout [UInt8]) {
        if let copied = text.utf8.withContiguousStorageIfAvailable({ bytes.append(contentsOf: $0) }) { return copied }
        bytes.append(contentsOf: text.utf8)
    }

    fileprivate func withResponseFields<R>(_ response: HTTP2Response, _ body: (UnsafeMutableBufferPointer<nghttp2_nv>) -> R) -> R {
        // Worked on as locals (taken out of the properties, put back after): no exclusivity
        // checks on every append.
        var bytes = fieldBytes
        var list = fieldList
        fieldBytes = []
        fieldList = []
        defer {
            fieldBytes = bytes
            fieldList = list
        }
        bytes.removeAll(keepingCapacity: true)
        list.removeAll(keepingCapacity: true)
        let none = UInt8(NGHTTP2_NV_FLAG_NONE.rawValue)
        let fieldFlags = server.configuration.indexesResponseHeaders ? none : UInt8(NGHTTP2_NV_FLAG_NO_INDEX.rawValue)
        bytes.append(contentsOf: ":status".utf8)
        let status = String(response.status)  // a small string: no allocation
        Self.append(status, to: &bytes)
        // Each name's and value's length now; their addresses once the bytes stop moving.
        list.append(nghttp2_nv(name: nil, value: nil, namelen: 7, valuelen: status.utf8.count, flags: none))
        for (name, value) in response.headers {
            let nameStart = bytes.count
            Self.append(name, to: &bytes)
            let valueStart = bytes.count
            Self.append(value, to: &bytes)
            list.append(nghttp2_nv(name: nil, value: nil, namelen: valueStart - nameStart, valuelen: bytes.count - valueStart, flags: fieldFlags))
        }
        return bytes.withUnsafeMutableBufferPointer { bytes in
            list.withUnsafeMutableBufferPointer { nva in
                // Each name's and value's address, now that the bytes stay where they are.
                var offset = 0
                for index in nva.indices {
                    nva[index].name = bytes.baseAddress! + offset
                    offset += nva[index].namelen
                    nva[index].value = bytes.baseAddress! + offset
                    offset += nva[index].valuelen
                }
                return body(nva)
            }
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
