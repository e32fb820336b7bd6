import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A plain HTTP/1.1 client over one TCP connection, for tests: it sends exactly what it is given
/// and reads responses with `Content-Length` or chunked bodies, so tests can check keep-alive,
/// streaming and malformed requests that a high-level client would refuse to send.
public final class TestHTTPConnection {
    public struct Response: Sendable {
        public var status: Int
        public var headers: [String: String]
        public var body: [UInt8]
        /// Every `Set-Cookie` header, in order (``headers`` keeps the last of a name only).
        public var setCookies: [String] = []

        /// A response; header names in lower case.
        public init(status: Int, headers: [String: String], body: [UInt8], setCookies: [String] = []) {
            self.status = status
            self.headers = headers
            self.body = body
            self.setCookies = setCookies
        }

        public var text: String { String(decoding: body, as: UTF8.self) }

        /// The body parsed as a JSON object (nil when it is not one).
        public var json: [String: Any]? {
            (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any]
        }

        /// `error.code` of an error body.
        public var errorCode: String? { (json?["error"] as? [String: Any])?["code"] as? String }
        /// `error.field` of an error body.
        public var errorField: String? { (json?["error"] as? [String: Any])?["field"] as? String }
        /// `error.message` of an error body.
        public var errorMessage: String? { (json?["error"] as? [String: Any])?["message"] as? String }
    }

    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    private let socket: Int32
    private var buffer: [UInt8] = []

    /// Connects to `127.0.0.1:port`; `timeout` bounds every read.
    public init(port: Int, timeout: TimeInterval = 10) throws {
        socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw Failure(description: "socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            // deinit closes the socket (closing it here too would close a number another thread may own by then)
            throw Failure(description: "connect to port \(port) failed: \(String(cString: strerror(errno)))")
        }
        var time = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
    }

    deinit { if socket >= 0 { close(socket) } }

    /// Sends raw bytes.
    public func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if sent < 0, errno == EINTR { continue }
            guard sent > 0 else { throw Failure(description: "send failed: \(String(cString: strerror(errno)))") }
            offset += sent
        }
    }

    /// Sends one request. `body` is sent with `Content-Length` and, unless given in `headers`,
    /// `Content-Type: application/json`.
    public func request(
        _ method: String, _ path: String, headers: [String: String] = [:], body: [UInt8]? = nil
    ) throws -> Response {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        var headers = headers
        if let body {
            headers["Content-Length"] = headers["Content-Length"] ?? String(body.count)
            if !headers.keys.contains(where: { $0.lowercased() == "content-type" }) {
                headers["Content-Type"] = "application/json"
            }
        }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        try send(Array(head.utf8) + (body ?? []))
        return try readResponse()
    }

    /// `request` with a string body.
    public func request(_ method: String, _ path: String, headers: [String: String] = [:], json: String) throws -> Response {
        try request(method, path, headers: headers, body: Array(json.utf8))
    }

    /// Reads one whole response.
    public func readResponse() throws -> Response {
        var response = try readHead()
        if let length = response.headers["content-length"].flatMap(Int.init) {
            response.body = try readExactly(length)
        } else if response.headers["transfer-encoding"]?.lowercased() == "chunked" {
            while let chunk = try readChunk() { response.body += chunk }
        } else if response.status != 204 && response.status != 304 {
            while let more = try receive() { buffer += more }
            response.body = buffer
            buffer = []
        }
        return response
    }

    /// Reads a status line and headers only (for streamed bodies, then call `readChunk`).
    public func readHead() throws -> Response {
        while true {
            if let end = find([13, 10, 13, 10]) {
                let head = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 4)
                var lines = head.components(separatedBy: "\r\n")
                let statusLine = lines.removeFirst().split(separator: " ")
                guard statusLine.count >= 2, let status = Int(statusLine[1]) else {
                    throw Failure(description: "bad status line: \(head)")
                }
                var headers: [String: String] = [:]
                var setCookies: [String] = []
                for line in lines {
                    guard let colon = line.firstIndex(of: ":") else { continue }
                    let name = line[..<colon].lowercased()
                    let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
                    headers[name] = value
                    if name == "set-cookie" { setCookies.append(value) }
                }
                return Response(status: status, headers: headers, body: [], setCookies: setCookies)
            }
            guard let more = try receive() else { throw Failure(description: "connection closed before a response") }
            buffer += more
        }
    }

    /// The next chunk of a chunked body; nil at its end.
    public func readChunk() throws -> [UInt8]? {
        let sizeLine = try readLine()
        guard let size = Int(sizeLine.split(separator: ";").first.map(String.init) ?? "", radix: 16) else {
            throw Failure(description: "bad chunk size line '\(sizeLine)'")
        }
        if size == 0 {
            _ = try readLine()
            return nil
        }
        let chunk = try readExactly(size)
        _ = try readExactly(2)
        return chunk
    }

    /// Whether the server closed the connection (reads until EOF or `timeout`).
    public func isClosedByServer() -> Bool {
        (try? receive()) == .some(nil)
    }

    private func readLine() throws -> String {
        while true {
            if let end = find([13, 10]) {
                let line = String(decoding: buffer[..<end], as: UTF8.self)
                buffer.removeFirst(end + 2)
                return line
            }
            guard let more = try receive() else { throw Failure(description: "connection closed mid-line") }
            buffer += more
        }
    }

    private func readExactly(_ count: Int) throws -> [UInt8] {
        while buffer.count < count {
            guard let more = try receive() else { throw Failure(description: "connection closed mid-body") }
            buffer += more
        }
        let out = Array(buffer[..<count])
        buffer.removeFirst(count)
        return out
    }

    /// Bytes received, or nil when the peer closed the connection.
    private func receive() throws -> [UInt8]? {
        var chunk = [UInt8](repeating: 0, count: 65536)
        // A signal (a debugger attaching, a profiler) interrupts a read with a receive timeout
        // even under SA_RESTART: read again.
        var count: Int
        repeat {
            count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        } while count < 0 && errno == EINTR
        if count == 0 { return nil }
        if count < 0 {
            if errno == ECONNRESET { return nil }
            throw Failure(description: "recv failed: \(String(cString: strerror(errno)))")
        }
        return Array(chunk[..<count])
    }

    private func find(_ pattern: [UInt8]) -> Int? {
        guard buffer.count >= pattern.count else { return nil }
        for index in 0...(buffer.count - pattern.count) where buffer[index] == pattern[0] {
            if Array(buffer[index..<(index + pattern.count)]) == pattern { return index }
        }
        return nil
    }
}
