import Foundation
import LivelineHTTP
import LivelineLog
import LivelineTestSupport
import Testing

/// Requests the protocol rules out (too large, ambiguous, unsupported) get the JSON error shape,
/// through real sockets, and the server keeps serving new connections afterwards.
@Suite struct HTTPServerProtocolErrorTests {
    /// Sends `raw` on a new connection and reads one response.
    static func send(_ raw: String, to server: HTTPServer) throws -> (TestHTTPConnection.Response, TestHTTPConnection) {
        let connection = try TestHTTPConnection(port: server.port)
        try connection.send(Array(raw.utf8))
        return (try connection.readResponse(), connection)
    }

    /// Expects the error shape `{"error":{"code","message","field"?}}` with this status and code.
    static func expectError(
        _ response: TestHTTPConnection.Response, status: Int, code: String, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        #expect(response.status == status, "\(response.text)", sourceLocation: sourceLocation)
        #expect(response.headers["content-type"]?.hasPrefix("application/json") == true, sourceLocation: sourceLocation)
        #expect(response.json?.keys.sorted() == ["error"], sourceLocation: sourceLocation)
        let error = response.json?["error"] as? [String: Any]
        #expect(Set((error ?? [:]).keys).isSubset(of: ["code", "message", "field"]), sourceLocation: sourceLocation)
        #expect(response.headers["connection"]?.lowercased() == "close", sourceLocation: sourceLocation)
        #expect(response.errorCode == code, sourceLocation: sourceLocation)
        #expect(response.errorMessage?.isEmpty == false, sourceLocation: sourceLocation)
    }

    /// A normal request on a new connection still works.
    static func expectStillServing(_ server: HTTPServer, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let response = try TestHTTPConnection(port: server.port).request("POST", "/echo", json: #"{"name":"milk","count":1}"#)
        #expect(response.status == 200, sourceLocation: sourceLocation)
        #expect(response.json?["name"] as? String == "MILK", sourceLocation: sourceLocation)
    }

    @Test func aFortyKilobyteHeaderIs431NamingTheLimit() throws {
        let server = try HTTPServerTests.startServer()
        defer { server.shutdown() }
        let (response, connection) = try Self.send(
            "GET /identity HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 40_000))\r\n\r\n", to: server
        )
        Self.expectError(response, status: 431, code: "headersTooLarge")
        #expect(response.errorMessage?.contains("at most 16384") == true)
        #expect(connection.isClosedByServer())
        try Self.expectStillServing(server)
    }

    @Test func aTwentyFourKilobyteCookieIs431() throws {
        // libmicrohttpd copies a Cookie header to parse it: it needs twice the memory of another.
        let server = try HTTPServerTests.startServer()
        defer { server.shutdown() }
        let (response, _) = try Self.send(
            "GET /identity HTTP/1.1\r\nHost: x\r\nCookie: session=\(String(repeating: "k", count: 24_000))\r\n\r\n", to: server
        )
        Self.expectError(response, status: 431, code: "headersTooLarge")
        try Self.expectStillServing(server)
    }

    @Test func manyHeadersTogetherOverTheLimitAre431() throws {
        let server = try HTTPServerTests.startServer()
        defer { server.shutdown() }
        let fields = (0..<20).map { "X-Field-\($0): \(String(repeating: "b", count: 1000))\r\n" }.joined()
        let (response, _) = try Self.send("GET /identity HTTP/1.1\r\nHost: x\r\n\(fields)\r\n", to: server)
        Self.expectError(response, status: 431, code: "headersTooLarge")
        try Self.expectStillServing(server)
    }

    @Test func manySmallFieldsOrCookiePairsWithinTheLimitAreServed() throws {
        // libmicrohttpd keeps about 64 bytes per field besides its text, and a Cookie's pairs as
        // fields of their own besides the copy it parses: its memory per connection (four times
        // the limit) must hold that for requests the limit lets through.
        let server = try HTTPServerTests.startServer()
        defer { server.shutdown() }
        let fields = (0..<500).map { "X-F\($0 + 10_000): \(String(repeating: "v", count: 17))\r\n" }.joined()
        let (manyFields, _) = try Self.send("GET /identity HTTP/1.1\r\nHost: x\r\n\(fields)\r\n", to: server)
        #expect(manyFields.status == 200)
        let pairs = (0..<450).map { "c\($0 + 1_000)=\(String(repeating: "v", count: 20))" }.joined(separator: "; ")
        let (cookie, _) = try Self.send("GET /identity HTTP/1.1\r\nHost: x\r\nCookie: \(pairs)\r\n\r\n", to: server)
        #expect(cookie.status == 200)
    }

    @Test func headersJustUnderTheLimitAreServedAndKeepTheConnection() throws {
        let server = try HTTPServerTests.startServer()
        defer { server.shutdown() }
        let connection = try TestHTTPConnection(port: server.port)
        for count in 0..<2 {
            let response = try connection.request(
                "POST", "/echo", headers: ["X-Big": String(repeating: "c", count: 15_000)], json: #"{"name":"a","count":\#(count)}"#
            )
            #expect(response.status == 200)
            #expect(response.json?["count"] as? Int == count + 1)
        }
    }

    @Test func aRequestTargetOverTheLimitIs414() throws {
        let server = try HTTPServerTests.startServer()
        defer { server.shutdown() }
        let (longPath, _) = try Self.send("GET /items/\(String(repeating: "p", count: 9000)) HTTP/1.1\r\nHost: x\r\n\r\n", to: server)
        Self.expectError(longPath, status: 414, code: "uriTooLong")
        #expect(longPath.errorMessage?.contains("at most 8192") == true)
        let (longQuery, _) = try Self.send("GET /identity?q=\(String(repeating: "q", count: 9000)) HTTP/1.1\r\nHost: x\r\n\r\n", to: server)
        Self.expectError(longQuery, status: 414, code: "uriTooLong")
        try Self.expectStillServing(server)
    }

    @Test func aNULInThePathOrQueryIs400InsteadOfACutValue() throws {
        let server = try HTTPServerTests.startServer()
        defer { server.shutdown() }
        let (inQuery, _) = try Self.send("GET /identity?q=ab%00cd HTTP/1.1\r\nHost: x\r\n\r\n", to: server)
        Self.expectError(inQuery, status: 400, code: "nulInTarget")
        let (inPath, _) = try Self.send("GET /items/a%00b HTTP/1.1\r\nHost: x\r\n\r\n", to: server)
        Self.expectError(inPath, status: 400, code: "nulInTarget")
        let (escaped, _) = try Self.send("GET /identity?q=100%25 HTTP/1.1\r\nHost: x\r\n\r\n", to: server)
        #expect(escaped.status != 400, "%25 is no NUL")
        try Self.expectStillServing(server)
    }

    @Test func http11WithoutHostIs400AndHTTP10WithoutHostIsServed() throws {
        let server = try HTTPServerTests.startServer()
        defer { server.shutdown() }
        let (missing, _) = try Self.send("GET /identity HTTP/1.1\r\n\r\n", to: server)
        Self.expectError(missing, status: 400, code: "missingHost")
        let (old, _) = try Self.send("GET /identity HTTP/1.0\r\n\r\n", to: server)
        #expect(old.status == 200)
        try Self.expectStillServing(server)
    }

    @Test func transferEncodingWithContentLengthIs400AndClosesTheConnection() throws {
        let server = try HTTPServerTests.startServer()
        defer { server.shutdown() }
        let body = #"{"name":"a","count":1}"#
        let chunked = String(body.utf8.count, radix: 16) + "\r\n\(body)\r\n0\r\n\r\n"
        let (response, connection) = try Self.send(
            "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n\(chunked)",
            to: server
        )
        Self.expectError(response, status: 400, code: "ambiguousLength")
        #expect(connection.isClosedByServer())
        try Self.expectStillServing(server)
    }

    @Test func aTransferCodingOtherThanChunkedIs501() throws {
        let server = try HTTPServerTests.startServer()
        defer { server.shutdown() }
        let (response, _) = try Self.send(
            "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: gzip\r\n\r\nnot really gzip", to: server
        )
        Self.expectError(response, status: 501, code: "unsupportedTransferEncoding")
        #expect(response.errorMessage?.contains("gzip") == true)
        try Self.expectStillServing(server)
    }

    @Test func anExpectationOtherThanContinueIs417AndContinueStillWorks() throws {
        let server = try HTTPServerTests.startServer()
        defer { server.shutdown() }
        let body = #"{"name":"a","count":1}"#
        let (refused, _) = try Self.send(
            "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: teapot\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body)",
            to: server
        )
        Self.expectError(refused, status: 417, code: "expectationFailed")
        let connection = try TestHTTPConnection(port: server.port)
        try connection.send(
            Array(
                "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
                    .utf8
            )
        )
        let interim = try connection.readHead()
        #expect(interim.status == 100)
        try connection.send(Array(body.utf8))
        let answered = try connection.readResponse()
        #expect(answered.status == 200)
        #expect(answered.json?["count"] as? Int == 2)
    }

    @Test func aRequestLibmicrohttpdAnswersItselfIsInTheAccessLog() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("access-\(UUID().uuidString).log")
        #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
        defer { try? FileManager.default.removeItem(at: file) }
        let handle = try FileHandle(forWritingTo: file)
        let server = try HTTPServerTests.startServer(log: LogSink(descriptor: handle.fileDescriptor))
        // libmicrohttpd 0.9.75 answers a Content-Length that is not a number itself, before the
        // access handler (its body is compiled in: see HTTPServer+ProtocolErrors.swift).
        let (response, _) = try Self.send("POST /echo?secret=s3cr3t HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", to: server)
        #expect(response.status == 400)
        try Self.expectStillServing(server)
        server.shutdown()
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
        // Either line may come first: the refused connection is logged when the library closes it.
        let entries = lines.compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
        let refused = try #require(entries.first { $0["answeredBy"] != nil })
        #expect(refused["status"] as? Int == 400)
        #expect(refused["answeredBy"] as? String == "libmicrohttpd")
        #expect(refused["path"] as? String == "/echo")
        #expect(entries.filter { $0["answeredBy"] == nil }.map { $0["status"] as? Int } == [200])
        #expect(!lines.joined().contains("s3cr3t"))
    }
}
