import CMicroHTTPD
import Dispatch
import Foundation
import LivelineLog
import LivelineModel

extension HTTPServer {
    /// One call of libmicrohttpd's access handler (see `accessHandler`).
    func access(
        connection: OpaquePointer, url: UnsafePointer<CChar>, method: UnsafePointer<CChar>, version: UnsafePointer<CChar>?,
        upload: UnsafePointer<CChar>?, uploadSize: UnsafeMutablePointer<Int>,
        slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        // `requestLineHandler` made the state when the request line was read.
        guard let raw = slot.pointee else { return .NO }
        let state = Unmanaged<RequestState>.fromOpaque(raw).takeUnretainedValue()
        if !state.headersSeen {
            // First call: headers only. Answering now would cost keep-alive, so only a request
            // the protocol rules out, or a body that announces itself as too large, is refused
            // here (the connection then closes).
            state.headersSeen = true
            state.method = String(cString: method)
            state.path = String(cString: url)
            // In flight from its headers on, so a shutdown waits for a body still arriving; one
            // that arrives during the drain is answered 503 and not waited for (see `shutdown`).
            inFlight.add(1, ordering: .sequentiallyConsistent)
            if draining.load(ordering: .sequentiallyConsistent) {
                state.arrivedWhileDraining = true
                inFlight.subtract(1, ordering: .sequentiallyConsistent)
            } else {
                state.inFlight = true
            }
            if let error = protocolError(of: state, version: version.map { String(cString: $0) } ?? "", on: connection) {
                return send(error.response, on: connection, state: state)
            }
            if let length = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length"),
                let declared = Int(String(cString: length)), declared > configuration.maxBodyBytes
            {
                state.tooLarge = true
                return send(responder.payloadTooLarge.response, on: connection, state: state)
            }
            return .YES
        }
        if uploadSize.pointee > 0 {
            let count = uploadSize.pointee
            if state.tooLarge {
                // A chunked body that keeps coming after the limit: stop reading at four times
                // the limit by closing the connection.
                state.discarded += count
                if state.discarded > 4 * configuration.maxBodyBytes { return .NO }
            } else if let upload {
                if state.body.count + count > configuration.maxBodyBytes {
                    state.tooLarge = true
                    state.discarded = state.body.count + count
                    state.body = []
                } else {
                    upload.withMemoryRebound(to: UInt8.self, capacity: count) { bytes in
                        state.body.append(contentsOf: UnsafeBufferPointer(start: bytes, count: count))
                    }
                }
            }
            uploadSize.pointee = 0
            return .YES
        }
        if state.status != 0 { return .YES }
        let response = responder.answer(
            method: state.method, path: state.path, body: state.body, bodyTooLarge: state.tooLarge,
            arrivedWhileDraining: state.arrivedWhileDraining
        ) {
            var query: [String: String] = [:]
            for (name, value) in values(of: .GET_ARGUMENT_KIND, on: connection) { query[name] = value }
            return Responder.Details(
                headers: HTTPHeaders(values(of: .HEADER_KIND, on: connection)), query: query, clientAddress: Self.clientAddress(of: connection))
        }
        return send(response, on: connection, state: state)
    }

    /// Hands `response` to libmicrohttpd.
    private func send(_ response: HTTPResponse, on connection: OpaquePointer, state: RequestState) -> MHD_Result {
        state.status = response.status
        let handle: OpaquePointer?
        switch response.body {
        case .bytes(let bytes):
            state.bytes = bytes.count
            handle = bytes.withUnsafeBytes { raw in
                MHD_create_response_from_buffer(raw.count, UnsafeMutableRawPointer(mutating: raw.baseAddress), .RESPMEM_MUST_COPY)
            }
        case .eventStream(let stream):
            stream.attach(to: ConnectionRef(raw: connection))
            let key = ObjectIdentifier(stream)
            streams.withLock { $0[key] = stream }
            stream.onTermination { [weak self] in _ = self?.streams.withLock { $0.removeValue(forKey: key) } }
            // A stream opened while shutting down ends after what is queued (no suspended
            // connection may outlive the daemon).
            if draining.load(ordering: .relaxed) { stream.close() }
            handle = MHD_create_response_from_callback(
                CMHD_SIZE_UNKNOWN, 4096, eventStreamReader, Unmanaged.passRetained(stream).toOpaque(), eventStreamFree
            )
        }
        guard let handle else { return .NO }
        for (name, value) in response.headers {
            _ = MHD_add_response_header(handle, name, value)
        }
        let result = MHD_queue_response(connection, UInt32(response.status), handle)
        MHD_destroy_response(handle)
        return result
    }

    /// The request is over: write its access-log line. A request libmicrohttpd answered itself
    /// (see `HTTPServer+ProtocolErrors.swift`) is logged with the status it queued and
    /// `"answeredBy":"libmicrohttpd"`.
    func completed(_ state: RequestState, connection: OpaquePointer?, cleanly: Bool) {
        if state.inFlight { inFlight.subtract(1, ordering: .relaxed) }
        guard !accessLog.discards else { return }
        // Nothing of ours was queued, yet a response was: libmicrohttpd's own.
        let libraryStatus = state.status == 0 ? connection.map { Int(cmhd_response_status($0)) } ?? 0 : 0
        logAccess(
            method: state.method, path: state.path, status: libraryStatus != 0 ? libraryStatus : state.status, bytes: state.bytes,
            started: state.started, byLibrary: libraryStatus != 0, aborted: !cleanly)
    }

    /// Writes one access-log line: no query string, headers or body (they may hold tokens).
    func logAccess(method: String, path: String, status: Int, bytes: Int, started: UInt64, byLibrary: Bool, aborted: Bool) {
        guard !accessLog.discards else { return }
        var line = JSONLine()
        line.add("ts", Date().timeIntervalSince1970)
        if !method.isEmpty { line.add("method", method) }
        // The target may be up to libmicrohttpd's memory per connection long.
        line.add("path", path.utf8.count > 2048 ? String(decoding: path.utf8.prefix(2048), as: UTF8.self) + "…" : path)
        line.add("status", status)
        if byLibrary { line.add("answeredBy", "libmicrohttpd") }
        line.add("bytes", bytes)
        line.add("ms", Double((DispatchTime.now().uptimeNanoseconds - started) / 1000) / 1000)
        if aborted { line.add("aborted", true) }
        accessLog.write(line)
    }

    private func values(of kind: MHD_ValueKind, on connection: OpaquePointer) -> [(String, String)] {
        let collector = KeyValueCollector()
        withExtendedLifetime(collector) {
            _ = MHD_get_connection_values(connection, kind, keyValueIterator, Unmanaged.passUnretained(collector).toOpaque())
        }
        return collector.pairs
    }

    /// The connection's client address as text, when libmicrohttpd knows it.
    static func clientAddress(of connection: OpaquePointer) -> String? {
        // On the stack: this runs on every request that reaches a handler.
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
            buffer.initialize(repeating: 0)
            guard let base = buffer.baseAddress, cmhd_client_address(connection, base, buffer.count - 1) == 0 else { return nil }
            return String(cString: base)
        }
    }

    /// `application/x-www-form-urlencoded`, with or without parameters (an HTML form's body).
    static func isForm(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        return mediaType(contentType).elementsEqual("application/x-www-form-urlencoded".utf8)
    }

    /// `application/json` or any `…+json` type, with or without parameters.
    static func isJSON(_ contentType: String?) -> Bool {
        guard let contentType else { return false }
        let type = mediaType(contentType)
        return type.elementsEqual("application/json".utf8)
            || (type.starts(with: "application/".utf8) && type.count >= "application/+json".utf8.count && type.suffix(5).elementsEqual("+json".utf8))
    }

    /// The media type of a `Content-Type` value: before any `;`, without the spaces and tabs
    /// around it, in ASCII lowercase (media types are case-insensitive, RFC 9110 §8.3.1). On the
    /// bytes: this runs for every request with a body.
    static func mediaType(_ contentType: String) -> [UInt8] {
        var bytes = Array(contentType.utf8.prefix { $0 != UInt8(ascii: ";") })
        while let last = bytes.last, last == UInt8(ascii: " ") || last == UInt8(ascii: "\t") { bytes.removeLast() }
        let leading = bytes.prefix { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") }.count
        bytes.removeFirst(leading)
        for index in bytes.indices where bytes[index] >= UInt8(ascii: "A") && bytes[index] <= UInt8(ascii: "Z") { bytes[index] += 32 }
        return bytes
    }
}
