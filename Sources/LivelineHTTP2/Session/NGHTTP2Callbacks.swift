import CNGHTTP2

// nghttp2's callbacks: plain global closures (not in main.swift, whose top-level closures are main-actor isolated) that
// hand each call to the `HTTP2Session` in `user_data`. They run on that session's loop thread,
// inside `nghttp2_session_mem_recv`/`mem_send`.

/// Calls `body` with the session in `userData` without retaining it (nghttp2 only calls back from
/// inside the session's own calls, which hold it): no reference-count traffic on every header.
private func withSession<R>(_ userData: UnsafeMutableRawPointer?, _ body: (HTTP2Session) -> R) -> R {
    Unmanaged<HTTP2Session>.fromOpaque(userData!)._withUnsafeGuaranteedRef(body)
}

private let onBeginHeaders: nghttp2_on_begin_headers_callback = { _, frame, userData in
    guard let frame else { return 0 }
    withSession(userData) { $0.beginHeaders(frame: frame) }
    return 0
}

private let onHeader: nghttp2_on_header_callback = { _, frame, name, nameLength, value, valueLength, _, userData in
    guard let frame, let name, let value else { return 0 }
    withSession(userData) {
        $0.header(
            frame: frame, name: UnsafeBufferPointer(start: name, count: nameLength), value: UnsafeBufferPointer(start: value, count: valueLength))
    }
    return 0
}

private let onFrameReceived: nghttp2_on_frame_recv_callback = { _, frame, userData in
    guard let frame else { return 0 }
    withSession(userData) { $0.frameReceived(frame) }
    return 0
}

private let onDataChunk: nghttp2_on_data_chunk_recv_callback = { _, _, streamID, data, length, userData in
    guard let data else { return 0 }
    withSession(userData) { $0.dataChunk(streamID: streamID, bytes: UnsafeBufferPointer(start: data, count: length)) }
    return 0
}

private let onStreamClosed: nghttp2_on_stream_close_callback = { _, streamID, errorCode, userData in
    withSession(userData) { $0.streamClosed(streamID: streamID, errorCode: errorCode) }
    return 0
}

/// Reads a response or request body for nghttp2's data provider.
let readBodyCallback: nghttp2_data_source_read_callback = { _, streamID, buffer, length, flags, _, userData in
    guard let buffer, let flags else { return Int(NGHTTP2_ERR_CALLBACK_FAILURE.rawValue) }
    return withSession(userData) { $0.readBody(streamID: streamID, into: buffer, capacity: length, flags: flags) }
}

/// The callback table shared by every session (read-only after creation).
nonisolated(unsafe) let sessionCallbacks: OpaquePointer = {
    var callbacks: OpaquePointer?
    precondition(nghttp2_session_callbacks_new(&callbacks) == 0, "nghttp2_session_callbacks_new")
    nghttp2_session_callbacks_set_on_begin_headers_callback(callbacks, onBeginHeaders)
    nghttp2_session_callbacks_set_on_header_callback(callbacks, onHeader)
    nghttp2_session_callbacks_set_on_frame_recv_callback(callbacks, onFrameReceived)
    nghttp2_session_callbacks_set_on_data_chunk_recv_callback(callbacks, onDataChunk)
    nghttp2_session_callbacks_set_on_stream_close_callback(callbacks, onStreamClosed)
    return callbacks!
}()
