import Foundation
import LivelineHTTP
import LivelineLog
import LivelineModel
import LivelineTestSupport
import Synchronization
import Testing

/// `HTTPServer.respond(to:)`: a request answered without a socket gets the answer the same request
/// gets over a connection, checked against the real server on port 0.
@Suite struct HTTPServerInProcessTests {
    static let look = Route(.get, "/look/{id}")
    static let lookPost = Route(.post, "/look/{id}")

    /// The test routes of `HTTPServerTests`, and `/look/{id}`, which answers what its handler saw.
    static func startServer(log: LogSink = .discarding(), errorLog: LogSink? = nil, listening: Bool = true) throws -> HTTPServer {
        var router = Router()
        router.add(HTTPServerTests.echo) { request in
            let body = try request.decode(HTTPServerTests.Echo.self)
            return try .json(HTTPServerTests.Echo(name: body.name.uppercased(), count: body.count + 1))
        }
        router.add(HTTPServerTests.item) { request in try .json(["id": request.parameter("id"), "q": request.query["q"] ?? ""]) }
        router.add(HTTPServerTests.boom) { _ in throw HTTPServerTests.Boom() }
        router.add(HTTPServerTests.events) { _ in .events(EventStream()) }
        let look: Router.Handler = { request in
            var headers: [String: String] = [:]
            for (name, value) in request.headers where name != "content-length" { headers[name] = value }
            return try .json(
                Looked(
                    method: request.method, path: request.path, id: request.parameter("id"), query: request.query, headers: headers,
                    body: String(decoding: request.body, as: UTF8.self), client: request.clientAddress ?? ""))
        }
        router.add(Self.look, look)
        router.add(Self.lookPost, look)
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(
                host: "127.0.0.1", port: 0, threads: 2, maxBodyBytes: 1024, maxTargetBytes: 512, formPathPrefixes: ["/look/form"]),
            router: router, accessLog: log, errorLog: errorLog
        )
        if listening { try server.start() }
        return server
    }

    struct Looked: Codable, Equatable {
        var method: String
        var path: String
        var id: String
        var query: [String: String]
        var headers: [String: String]
        var body: String
        var client: String
    }

    /// `method target` in-process, framed as `TestHTTPConnection` frames it, from 127.0.0.1.
    static func inProcess(
        _ server: HTTPServer, _ method: String, _ target: String, headers: [String: String] = [:], body: [UInt8]? = nil
    ) -> HTTPResponse {
        var fields = HTTPHeaders()
        fields.add("Host", "127.0.0.1")
        var headers = headers
        if let body {
            headers["Content-Length"] = headers["Content-Length"] ?? String(body.count)
            if !headers.keys.contains(where: { $0.lowercased() == "content-type" }) { headers["Content-Type"] = "application/json" }
        }
        for (name, value) in headers.sorted(by: { $0.key < $1.key }) { fields.add(name, value) }
        return server.respond(to: InProcessRequest(method: method, target: target, headers: fields, body: body ?? [], clientAddress: "127.0.0.1"))
    }

    /// `method target` over a new connection; the answer to HEAD is its head (no body follows).
    static func overAConnection(
        _ server: HTTPServer, _ method: String, _ target: String, headers: [String: String], body: [UInt8]?
    ) throws -> TestHTTPConnection.Response {
        let connection = try TestHTTPConnection(port: server.port)
        guard method == "HEAD" else { return try connection.request(method, target, headers: headers, body: body) }
        try connection.send(Array("HEAD \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        return try connection.readHead()
    }

    static func bytes(of response: HTTPResponse) -> [UInt8]? {
        if case .bytes(let bytes) = response.body { return bytes }
        return nil
    }

    @Test func everyRequestIsAnsweredInProcessAsOverAConnection() throws {
        let server = try Self.startServer()
        defer { server.shutdown() }
        let long = "/look/1?q=" + String(repeating: "a", count: 600)
        let cases: [(method: String, target: String, headers: [String: String], body: String?)] = [
            ("GET", "/look/a%20b%2C+c?q=a+b%2Bc&q=last&flag&=empty&x=%zz&y=%4&&pct=100%25", ["X-Probe": "  padded value  "], nil),
            ("GET", "/look/a%2Fb", [:], nil),
            ("POST", "/look/%C3%BC", ["Authorization": "Bearer tok"], #"{"a":1}"#),
            ("POST", "/look/form", ["Content-Type": "application/x-www-form-urlencoded"], "a=1"),
            ("POST", "/look/other", ["Content-Type": "application/x-www-form-urlencoded"], "a=1"),
            ("POST", "/look/json", ["Content-Type": "Application/Merge-Patch+JSON ; charset=utf-8"], "{}"),
            ("POST", "/look/empty", [:], ""),
            ("GET", "/nothing-here", [:], nil),
            ("DELETE", "/echo", [:], nil),
            ("POST", "/echo", [:], "{not json"),
            ("POST", "/echo", [:], #"{"name":"milk"}"#),
            ("POST", "/echo", [:], #"{"name":"milk","count":1}"#),
            ("POST", "/echo", [:], String(repeating: " ", count: 2000)),
            ("GET", "/boom", [:], nil),
            ("HEAD", "/items/7", [:], nil),
            ("GET", "/items/x%00y", [:], nil),
            ("GET", long, [:], nil),
            ("GET", "/items/%E2%82%AC?q=%E2%82%AC", [:], nil),
            ("GET", "/items/%FF", [:], nil),
        ]
        for (method, target, headers, body) in cases {
            let bytes = body.map { Array($0.utf8) }
            let wire = try Self.overAConnection(server, method, target, headers: headers, body: bytes)
            let answer = Self.inProcess(server, method, target, headers: headers, body: bytes)
            let label = "\(method) \(target.prefix(80))"
            #expect(answer.status == wire.status, "\(label)")
            #expect(Self.bytes(of: answer) == wire.body, "\(label): \(String(decoding: Self.bytes(of: answer) ?? [], as: UTF8.self)) vs \(wire.text)")
            // Every field the application set is on the wire as set; the wire adds only libmicrohttpd's own.
            var set: [String: String] = [:]
            for (name, value) in answer.headers { set[name] = value }
            let added = Set(wire.headers.keys).subtracting(set.keys)
            #expect(added.isSubset(of: ["date", "content-length", "connection"]), "\(label): \(added)")
            for (name, value) in set { #expect(wire.headers[name] == value, "\(label): \(name)") }
        }
    }

    @Test func aHandlerSeesTheRequestAsFromAConnection() throws {
        let server = try Self.startServer()
        defer { server.shutdown() }
        let target = "/look/a%20b?q=a+b&q=last&flag"
        let wire = try TestHTTPConnection(port: server.port).request("GET", target, headers: ["X-Probe": "v"])
        let answer = Self.inProcess(server, "GET", target, headers: ["X-Probe": "v"])
        let looked = try JSONDecoder().decode(Looked.self, from: Data(try #require(Self.bytes(of: answer))))
        #expect(looked == (try JSONDecoder().decode(Looked.self, from: Data(wire.body))))
        #expect(looked.path == "/look/a b" && looked.query == ["q": "last", "flag": ""] && looked.client == "127.0.0.1")
        #expect(looked.headers == ["host": "127.0.0.1", "x-probe": "v"])
    }

    @Test func anUnstartedServerAnswersAndItsShutdownRefusesLaterRequests() throws {
        let log = LogSink.inMemory()
        let server = try Self.startServer(log: log, listening: false)
        #expect(server.port == 0)
        let answer = Self.inProcess(server, "POST", "/echo?secret=s3cr3t", body: Array(#"{"name":"tea","count":2}"#.utf8))
        #expect(answer.status == 200)
        let echoed = try JSONDecoder().decode(HTTPServerTests.Echo.self, from: Data(try #require(Self.bytes(of: answer))))
        #expect(echoed.name == "TEA" && echoed.count == 3)
        server.shutdown()
        #expect(server.isShuttingDown)
        let late = Self.inProcess(server, "GET", "/items/1")
        #expect(late.status == 503)
        #expect(late.headers["connection"] == "close")
        // One access-log line each, as over a connection: no query string.
        #expect(log.lines.count == 2, "\(log.lines)")
        #expect(log.lines.first?.contains(#""path":"/echo""#) == true && log.lines.first?.contains(#""status":200"#) == true)
        #expect(log.lines.last?.contains(#""status":503"#) == true)
        #expect(!log.lines.joined().contains("s3cr3t"))
    }

    @Test func aShutdownWaitsForARequestInProcess() throws {
        let entered = Atomic<Bool>(false)
        let release = Atomic<Bool>(false)
        let finished = Atomic<Bool>(false)
        var router = Router()
        router.add(HTTPServerTests.slow) { _ in
            entered.store(true, ordering: .sequentiallyConsistent)
            while !release.load(ordering: .sequentiallyConsistent) { usleep(1000) }
            finished.store(true, ordering: .sequentiallyConsistent)
            return .jsonBytes(Array(#"{"slow":true}"#.utf8))
        }
        let server = HTTPServer(configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0), router: router, accessLog: .discarding())
        let status = Mutex<Int?>(nil)
        let answered = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let answer = server.respond(to: InProcessRequest(method: "GET", target: "/slow"))
            status.withLock { $0 = answer.status }
            answered.signal()
        }
        #expect(eventuallyBlocking { entered.load(ordering: .sequentiallyConsistent) })
        let finishedWhenStopped = Mutex<Bool?>(nil)
        let stopped = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            server.shutdown()
            finishedWhenStopped.withLock { $0 = finished.load(ordering: .sequentiallyConsistent) }
            stopped.signal()
        }
        #expect(eventuallyBlocking { server.isShuttingDown })
        release.store(true, ordering: .sequentiallyConsistent)
        answered.wait()
        stopped.wait()
        #expect(status.withLock { $0 } == 200)
        #expect(finishedWhenStopped.withLock { $0 } == true, "the shutdown returned only after the request in flight")
    }

    @Test func anEventStreamIsEndedInProcessAndReturnedAsSuch() throws {
        let server = try Self.startServer(listening: false)
        defer { server.shutdown() }
        let answer = Self.inProcess(server, "GET", "/events")
        guard case .eventStream(let stream) = answer.body else {
            Issue.record("the answer is no event stream")
            return
        }
        #expect(!stream.isOpen)
        #expect(!stream.send(data: "late"))
        let ended = Mutex(false)
        stream.onTermination { ended.withLock { $0 = true } }
        #expect(ended.withLock { $0 }, "it ended as when a client goes away")
    }

    @Test func aHandlerFailureIsLoggedInProcessToo() throws {
        let errors = LogSink.inMemory()
        let server = try Self.startServer(errorLog: errors, listening: false)
        defer { server.shutdown() }
        #expect(Self.inProcess(server, "GET", "/boom").status == 500)
        let line = try #require(errors.lines.first { $0.contains(#""event":"handlerFailed""#) }, "\(errors.lines)")
        #expect(line.contains(#""path":"/boom""#) && line.contains("Boom"), "\(line)")
    }
}
