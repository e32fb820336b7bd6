import CMicroHTTPD

// libmicrohttpd's callbacks. They are plain global closures in a file that is not `main.swift`
// (top-level closures in main.swift are main-actor isolated in Swift 6 and trap when a C library
// calls them from its own threads).

/// Called for a request's headers, then for each chunk of its body, then once more when it is
/// complete; `conCls` carries the `RequestState` across the calls.
let accessHandler: MHD_AccessHandlerCallback = { cls, connection, url, method, version, uploadData, uploadDataSize, conCls in
    guard let cls, let connection, let url, let method, let uploadDataSize, let conCls else { return .NO }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    return server.access(
        connection: connection, url: url, method: method, version: version,
        upload: uploadData, uploadSize: uploadDataSize, slot: conCls
    )
}

/// Called once a request line is read, before its headers (`MHD_OPTION_URI_LOG_CALLBACK`): the
/// `RequestState` it returns is the request's `*con_cls` in the calls that follow, and
/// libmicrohttpd now calls `completedHandler` for the request even if it answers it itself.
let requestLineHandler: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) -> UnsafeMutableRawPointer? = {
    _, uri, _ in
    guard let uri else { return nil }
    return Unmanaged.passRetained(RequestState(target: uri)).toOpaque()
}

/// Called when a request is finished (answered, failed or the client went away).
let completedHandler: MHD_RequestCompletedCallback = { cls, connection, conCls, termination in
    guard let cls, let conCls, let raw = conCls.pointee else { return }
    conCls.pointee = nil
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    let state = Unmanaged<RequestState>.fromOpaque(raw).takeRetainedValue()
    server.completed(state, connection: connection, cleanly: termination == .REQUEST_TERMINATED_COMPLETED_OK)
}

/// Collects header fields or query arguments into a `KeyValueCollector`.
let keyValueIterator: MHD_KeyValueIterator = { cls, _, key, value in
    guard let cls, let key else { return .YES }
    let collector = Unmanaged<KeyValueCollector>.fromOpaque(cls).takeUnretainedValue()
    collector.pairs.append((String(cString: key), value.map { String(cString: $0) } ?? ""))
    return .YES
}

/// Feeds an event stream's queued bytes to the connection.
let eventStreamReader: MHD_ContentReaderCallback = { cls, _, buffer, capacity in
    guard let cls, let buffer else { return Int(MHD_CONTENT_READER_END_OF_STREAM) }
    let stream = Unmanaged<EventStream>.fromOpaque(cls).takeUnretainedValue()
    return stream.read(into: buffer, capacity: capacity)
}

/// Releases an event stream when its response is destroyed.
let eventStreamFree: MHD_ContentReaderFreeCallback = { cls in
    guard let cls else { return }
    let stream = Unmanaged<EventStream>.fromOpaque(cls).takeRetainedValue()
    stream.detach()
}

/// Gathers name/value pairs from `MHD_get_connection_values`.
final class KeyValueCollector {
    var pairs: [(String, String)] = []
}
