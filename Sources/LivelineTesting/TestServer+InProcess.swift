import LivelineHTTP
import LivelineTestSupport

extension TestServer {
    /// `request` answered in-process, framed as ``TestHTTPConnection`` frames it (a `Host`, and
    /// with a body its `Content-Length` and, unless given, `Content-Type: application/json`), from
    /// 127.0.0.1 as a test's connection is. The response holds the header fields the application
    /// set, without those libmicrohttpd adds on the wire.
    func respondInProcess(_ method: String, _ target: String, headers: [String: String], body: [UInt8]?) throws -> TestHTTPConnection.Response {
        var fields = HTTPHeaders()
        fields.add("Host", "127.0.0.1")
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { fields.add(name, value) }
        if let body {
            if fields["content-length"] == nil { fields.add("Content-Length", String(body.count)) }
            if fields["content-type"] == nil { fields.add("Content-Type", "application/json") }
        }
        let request = InProcessRequest(method: method, target: target, headers: fields, body: body ?? [], clientAddress: "127.0.0.1")
        let response = app.respond(to: request)
        guard case .bytes(let bytes) = response.body else {
            throw TestServerError("\(method) \(target) answered an event stream, which only a live server serves: make it with TestServer(.live)")
        }
        var names: [String: String] = [:]
        var setCookies: [String] = []
        for (name, value) in response.headers {
            names[name] = value
            if name == "set-cookie" { setCookies.append(value) }
        }
        return TestHTTPConnection.Response(status: response.status, headers: names, body: bytes, setCookies: setCookies)
    }
}
