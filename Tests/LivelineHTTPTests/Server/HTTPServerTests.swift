import Foundation
import LivelineHTTP
import LivelineLog
import LivelineModel
import LivelineTestSupport
import Synchronization
import Testing

/// The HTTP layer through real sockets: a server on port 0, requests over TCP.
@Suite struct HTTPServerTests {
    struct Echo: Codable { var name: String; var count: Int }
    struct Boom: Error {}

    static let echo = Route(.post, "/echo")
    static let item = Route(.get, "/items/{id}")
    static let slow = Route(.get, "/slow")
    static let events = Route(.get, "/events")
    static let boom = Route(.get, "/boom")
    static let identity = Route(.get, "/identity")

    /// Starts a server with the test routes; `maxBodyBytes` small so 413 is cheap to reach.
    /// `/identity` answers `identity`, so a test can tell this server from any other on its port.
    static func startServer(
        log: LogSink = .discarding(), errorLog: LogSink? = nil, identity: String = UUID().uuidString,
        onSlow: @escaping @Sendable () -> Void = {}
    ) throws -> HTTPServer {
        var router = Router()
        router.add(Self.identity) { _ in .jsonBytes(Array(identity.utf8)) }
        router.add(echo) { request in
            let body = try request.decode(Echo.self)
            return try .json(Echo(name: body.name.uppercased(), count: body.count + 1))
        }
        router.add(item) { request in try .json(["id": request.parameter("id"), "q": request.query["q"] ?? ""]) }
        router.add(slow) { _ in
            onSlow()
            Thread.sleep(forTimeInterval: 0.4)
            return .jsonBytes(Array(#"{"slow":true}"#.utf8))
        }
        router.add(events) { _ in
            let stream = EventStream()
            DispatchQueue.global().async {
                for index in 1...3 {
                    Thread.sleep(forTimeInterval: 0.02)
                    stream.send(event: "tick", id: String(index), data: "n=\(index)")
                }
                stream.close()
            }
            return .events(stream)
        }
        router.add(boom) { _ in throw Boom() }
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, threads: 2, maxBodyBytes: 1024),
            router: router, accessLog: log, errorLog: errorLog
        )
        try server.start()
        return server
    }

    @Test func servesJSONAndKeepsTheConnectionAlive() throws {
        let server = try Self.startServer()
        defer { server.shutdown() }
        #expect(server.port > 0)
        let connection = try TestHTTPConnection(port: server.port)
        for count in 0..<3 {
            let response = try connection.request("POST", "/echo", json: #"{"name":"milk","count":\#(count)}"#)
            #expect(response.status == 200)
            #expect(response.headers["content-type"] == "application/json; charset=utf-8")
            #expect(response.json?["name"] as? String == "MILK")
            #expect(response.json?["count"] as? Int == count + 1)
        }
    }

    @Test func pathParametersAndQueryReachTheHandler() throws {
        let server = try Self.startServer()
        defer { server.shutdown() }
        let response = try TestHTTPConnection(port: server.port).request("GET", "/items/shopping:1:2026-01-05?q=a%20b")
        #expect(response.status == 200)
        #expect(response.json?["id"] as? String == "shopping:1:2026-01-05")
        #expect(response.json?["q"] as? String == "a b")
    }

    @Test func unknownPathIs404AndWrongMethodIs405WithAllow() throws {
        let server = try Self.startServer()
        defer { server.shutdown() }
        let connection = try TestHTTPConnection(port: server.port)
        let missing = try connection.request("GET", "/nope")
        #expect(missing.status == 404)
        #expect(missing.errorCode == "notFound")
        let wrong = try connection.request("DELETE", "/echo")
        #expect(wrong.status == 405)
        #expect(wrong.errorCode == "methodNotAllowed")
        #expect(wrong.headers["allow"] == "POST")
    }

    @Test func malformedJSONIs400NamingTheBody() throws {
        let server = try Self.startServer()
        defer { server.shutdown() }
        let connection = try TestHTTPConnection(port: server.port)
        let broken = try connection.request("POST", "/echo", json: #"{"name": "#)
        #expect(broken.status == 400)
        #expect(broken.errorCode == "badRequest")
        #expect(broken.errorField == "body")
        let empty = try connection.request("POST", "/echo", body: [])
        #expect(empty.status == 400)
        #expect(empty.errorField == "body")
    }

    @Test func wrongFieldTypeIs400NamingTheField() throws {
        let server = try Self.startServer()
        defer { server.shutdown() }
        let connection = try TestHTTPConnection(port: server.port)
        let wrongType = try connection.request("POST", "/echo", json: #"{"name":"x","count":"three"}"#)
        #expect(wrongType.status == 400)
        #expect(wrongType.errorField == "count")
        #expect(wrongType.errorMessage?.contains("whole number") == true)
        let missing = try connection.request("POST", "/echo", json: #"{"count":1}"#)
        #expect(missing.errorField == "name")
        #expect(missing.errorMessage?.contains("missing") == true)
    }

    @Test func oversizedBodyIs413() throws {
        let server = try Self.startServer()
        defer { server.shutdown() }
        let big = #"{"name":"\#(String(repeating: "x", count: 2000))","count":1}"#
        let response = try TestHTTPConnection(port: server.port).request("POST", "/echo", json: big)
        #expect(response.status == 413)
        #expect(response.errorCode == "payloadTooLarge")
    }

    @Test func oversizedChunkedBodyIs413() throws {
        let server = try Self.startServer()
        defer { server.shutdown() }
        let connection = try TestHTTPConnection(port: server.port)
        let chunk = String(repeating: "y", count: 700)
        let raw =
            "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "2bc\r\n\(chunk)\r\n2bc\r\n\(chunk)\r\n0\r\n\r\n"
        try connection.send(Array(raw.utf8))
        let response = try connection.readResponse()
        #expect(response.status == 413)
    }

    @Test func nonJSONBodyIs415() throws {
        let server = try Self.startServer()
        defer { server.shutdown() }
        let response = try TestHTTPConnection(port: server.port)
            .request("POST", "/echo", headers: ["Content-Type": "text/plain"], body: Array("name=milk".utf8))
        #expect(response.status == 415)
        #expect(response.errorCode == "unsupportedMediaType")
    }

    @Test(arguments: [
        ("application/json", true), ("Application/JSON; charset=utf-8", true), (" application/json ;charset=utf-8", true),
        ("\tapplication/merge-patch+json", true), ("application/vnd.api+JSON", true), ("application/jsonx", false),
        ("text/json", false), ("application/json-patch", false), ("application/x-www-form-urlencoded", false), ("", false),
    ])
    func aBodyIsTakenAsJSONByItsMediaTypeWhateverItsCaseParametersOrSpaces(_ contentType: String, _ json: Bool) throws {
        let server = try Self.startServer()
        defer { server.shutdown() }
        let response = try TestHTTPConnection(port: server.port)
            .request("POST", "/echo", headers: ["Content-Type": contentType], body: Array(#"{"name":"milk"}"#.utf8))
        #expect(json ? response.status != 415 : response.status == 415, "\(contentType): \(response.status) \(response.text)")
    }

    @Test func anyBodyReachesTheHandlerWhenJSONIsNotRequired() throws {
        var router = Router()
        router.add(Self.echo) { request in .jsonBytes(Array(#"{"bytes":\#(request.body.count)}"#.utf8), status: 201) }
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, threads: 1, requiresJSONBodies: false),
            router: router, accessLog: .discarding()
        )
        try server.start()
        defer { server.shutdown() }
        let response = try TestHTTPConnection(port: server.port)
            .request("POST", "/echo", headers: ["Content-Type": "application/octet-stream"], body: [1, 2, 3])
        #expect(response.status == 201)
        #expect(response.json?["bytes"] as? Int == 3)
    }

    @Test func handlerFailureIs500WithoutDetails() throws {
        let server = try Self.startServer()
        defer { server.shutdown() }
        let response = try TestHTTPConnection(port: server.port).request("GET", "/boom")
        #expect(response.status == 500)
        #expect(response.errorCode == "internal")
        #expect(response.errorMessage?.contains("Boom") == false)
    }

    @Test func aHandlerFailureIsLoggedWithItsDescriptionEvenWithRequestLinesOff() throws {
        let errors = LogSink.inMemory()
        let server = try Self.startServer(log: .discarding(), errorLog: errors)
        defer { server.shutdown() }
        #expect(try TestHTTPConnection(port: server.port).request("GET", "/boom").status == 500)
        let line = try #require(errors.lines.first { $0.contains(#""event":"handlerFailed""#) }, "\(errors.lines)")
        #expect(line.contains(#""path":"/boom""#) && line.contains("Boom"), "\(line)")
    }

    @Test func concurrentRequestsAllSucceed() async throws {
        let server = try Self.startServer()
        defer { server.shutdown() }
        let port = server.port
        let statuses = try await withThrowingTaskGroup(of: [Int].self) { group in
            for client in 0..<16 {
                group.addTask {
                    let connection = try TestHTTPConnection(port: port)
                    return try (0..<25).map { index in
                        let response = try connection.request("POST", "/echo", json: #"{"name":"c\#(client)","count":\#(index)}"#)
                        return response.json?["count"] as? Int == index + 1 ? response.status : -1
                    }
                }
            }
            var all: [Int] = []
            for try await statuses in group { all += statuses }
            return all
        }
        #expect(statuses.count == 400)
        #expect(statuses.allSatisfy { $0 == 200 })
    }

    @Test func serverSentEventsArriveInOrderAndTheStreamEnds() throws {
        let server = try Self.startServer()
        defer { server.shutdown() }
        let connection = try TestHTTPConnection(port: server.port)
        try connection.send(Array("GET /events HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        let head = try connection.readHead()
        #expect(head.status == 200)
        #expect(head.headers["content-type"] == "text/event-stream")
        var text = ""
        while let chunk = try connection.readChunk() { text += String(decoding: chunk, as: UTF8.self) }
        #expect(text == "id: 1\nevent: tick\ndata: n=1\n\nid: 2\nevent: tick\ndata: n=2\n\nid: 3\nevent: tick\ndata: n=3\n\n")
    }

    @Test func shutdownLetsInFlightRequestsFinishAndRefusesNewConnections() throws {
        let started = DispatchSemaphore(value: 0)
        let identity = UUID().uuidString
        let server = try Self.startServer(identity: identity, onSlow: { started.signal() })
        let port = server.port
        #expect(Self.probe(port) == .answered(identity))
        let result = Mutex<Int?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            let status = try? TestHTTPConnection(port: port).request("GET", "/slow").status
            result.withLock { $0 = status }
            done.signal()
        }
        started.wait()
        server.shutdown()
        done.wait()
        #expect(result.withLock { $0 } == 200)
        // Connections are refused now — or, should another test's server have been given the port
        // meanwhile, answered by that one: never by this server.
        switch Self.probe(port) {
        case .refused: break
        case .answered(let other): #expect(other != identity, "still served by the stopped server")
        case .failed(let why): Issue.record("neither refused nor answered by another server: \(why)")
        }
    }

    enum Probe: Equatable {
        /// Nothing accepts connections on the port.
        case refused
        /// `/identity` was answered 200 with this body.
        case answered(String)
        /// Anything else (another status, a timeout, a reset).
        case failed(String)
    }

    /// Who answers `/identity` on `port`.
    static func probe(_ port: Int) -> Probe {
        let connection: TestHTTPConnection
        do { connection = try TestHTTPConnection(port: port, timeout: 5) } catch { return .refused }
        do {
            let response = try connection.request("GET", "/identity")
            return response.status == 200 ? .answered(response.text) : .failed("status \(response.status)")
        } catch {
            return .failed("\(error)")
        }
    }

    @Test func accessLogHasOneJSONLinePerRequestWithoutQueryOrHeaders() throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("access-\(UUID().uuidString).log")
        #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
        defer { try? FileManager.default.removeItem(at: file) }
        let handle = try FileHandle(forWritingTo: file)
        let server = try Self.startServer(log: LogSink(descriptor: handle.fileDescriptor))
        let connection = try TestHTTPConnection(port: server.port)
        _ = try connection.request("GET", "/items/7?secret=s3cr3t", headers: ["Authorization": "Bearer tok_abcdef"])
        _ = try connection.request("GET", "/nope")
        server.shutdown()
        let lines = try String(contentsOf: file, encoding: .utf8).split(separator: "\n")
        #expect(lines.count == 2)
        let first = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(first["path"] as? String == "/items/7")
        #expect(first["status"] as? Int == 200)
        #expect(first["method"] as? String == "GET")
        #expect(first["ms"] is Double)
        let all = lines.joined()
        #expect(!all.contains("s3cr3t") && !all.contains("tok_abcdef"))
        #expect(lines[1].contains(#""status":404"#))
    }
}

extension HTTPServerTests {
    @Test func anIdleOrStalledConnectionIsClosedAfterTheTimeout() throws {
        var router = Router()
        router.add(Self.echo) { _ in .jsonBytes([]) }
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, threads: 1, connectionTimeoutSeconds: 1),
            router: router, accessLog: .discarding()
        )
        try server.start()
        defer { server.shutdown() }
        let stalled = try TestHTTPConnection(port: server.port, timeout: 5)
        try stalled.send(Array("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n{\"a".utf8))
        let started = Date()
        #expect(stalled.isClosedByServer())
        let waited = Date().timeIntervalSince(started)
        #expect(waited >= 0.5 && waited < 4, "closed after \(waited) s")
    }

    @Test func startingOnABusyPortFailsClearly() throws {
        let first = try Self.startServer()
        defer { first.shutdown() }
        let second = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: first.port),
            router: Router(), accessLog: .discarding()
        )
        #expect(throws: HTTPServerError.self) { try second.start() }
    }
}

extension HTTPServerTests {
    @Test func anEventStreamOpenedDuringShutdownDoesNotOutliveTheServer() throws {
        let entered = DispatchSemaphore(value: 0)
        var router = Router()
        router.add(Self.events) { _ in
            entered.signal()
            Thread.sleep(forTimeInterval: 0.3)
            let stream = EventStream()
            stream.send(data: "late")
            return .events(stream)
        }
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, threads: 2), router: router, accessLog: .discarding()
        )
        try server.start()
        let port = server.port
        let received = Mutex("")
        let done = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            defer { done.signal() }
            guard let connection = try? TestHTTPConnection(port: port),
                (try? connection.send(Array("GET /events HTTP/1.1\r\nHost: x\r\n\r\n".utf8))) != nil,
                let head = try? connection.readHead(), head.status == 200
            else { return }
            var text = ""
            while let chunk = try? connection.readChunk() { text += String(decoding: chunk, as: UTF8.self) }
            received.withLock { $0 = text }
        }
        entered.wait()
        server.shutdown(timeout: .seconds(3))  // would abort in MHD_stop_daemon with a suspended connection
        done.wait()
        #expect(received.withLock { $0 } == "data: late\n\n")
        #expect(server.requestsInFlight == 0)
    }

    @Test func aBodyStillUploadingWhenShutdownStartsIsAnswered() throws {
        let server = try Self.startServer()
        let connection = try TestHTTPConnection(port: server.port)
        let body = #"{"name":"milk","count":1}"#
        try connection.send(
            Array(
                "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body.prefix(8))".utf8
            ))
        #expect(eventuallyBlocking { server.requestsInFlight == 1 }, "its headers arrived before the shutdown")
        let stopped = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            server.shutdown(timeout: .seconds(20))
            stopped.signal()
        }
        #expect(eventuallyBlocking { server.isShuttingDown })
        try connection.send(Array(body.dropFirst(8).utf8))
        let response = try connection.readResponse()
        stopped.wait()
        #expect(response.status == 200)
        #expect(response.json?["count"] as? Int == 2)
    }

    @Test func aClientThatLeftAnIdleStreamIsNoticed() throws {
        let opened = Mutex<EventStream?>(nil)
        var router = Router()
        router.add(Self.events) { _ in
            let stream = EventStream()
            opened.withLock { $0 = stream }
            return .events(stream)
        }
        let server = HTTPServer(
            configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, threads: 1, eventStreamKeepAliveSeconds: 0.1),
            router: router, accessLog: .discarding()
        )
        try server.start()
        defer { server.shutdown() }
        do {
            let connection = try TestHTTPConnection(port: server.port)
            try connection.send(Array("GET /events HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            #expect(try connection.readHead().status == 200)
        }  // the client closes its socket here
        let stream = try #require(opened.withLock { $0 })
        let deadline = Date().addingTimeInterval(3)
        while stream.isOpen && Date() < deadline { Thread.sleep(forTimeInterval: 0.05) }
        #expect(!stream.isOpen)
        #expect(server.requestsInFlight == 0)
    }

    @Test func headIsAnsweredLikeGetWithoutABody() throws {
        let server = try Self.startServer()
        defer { server.shutdown() }
        let connection = try TestHTTPConnection(port: server.port)
        try connection.send(Array("HEAD /items/5 HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        let head = try connection.readHead()
        #expect(head.status == 200)
        #expect(Int(head.headers["content-length"] ?? "") ?? 0 > 0)
        // The connection carries on with no body bytes in between.
        #expect(try connection.request("GET", "/items/6").json?["id"] as? String == "6")
    }

    @Test func invalidUTF8IsNamedAsInvalidJSON() throws {
        let server = try Self.startServer()
        defer { server.shutdown() }
        let response = try TestHTTPConnection(port: server.port).request("POST", "/echo", body: [0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d])
        #expect(response.status == 400)
        #expect(response.errorMessage == "the body is not valid JSON (UTF-8)")
    }
}

extension HTTPServerTests {
    @Test func duringTheDrainNewRequestsGet503WithConnectionCloseWhileTheOneInProgressFinishes() throws {
        let server = try Self.startServer()
        let port = server.port
        let keptAlive = try TestHTTPConnection(port: port)
        #expect(try keptAlive.request("GET", "/items/1").status == 200)
        // That request counts until the server has finished it, which may be after its answer arrived.
        #expect(eventuallyBlocking { server.requestsInFlight == 0 })
        // In progress: its headers have arrived, its body has not (no worker thread is held).
        let held = try TestHTTPConnection(port: port)
        let body = #"{"name":"milk","count":1}"#
        try held.send(
            Array(
                "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n\r\n\(body.prefix(8))".utf8
            ))
        #expect(eventuallyBlocking { server.requestsInFlight == 1 })

        let stopped = DispatchSemaphore(value: 0)
        let finished = Atomic<Bool>(false)
        Thread.detachNewThread {
            server.shutdown(timeout: .seconds(20))
            finished.store(true, ordering: .relaxed)
            stopped.signal()
        }
        // A new connection is still accepted while the request is in progress; once the drain
        // has begun, it is answered 503 and closed.
        var drained: TestHTTPConnection.Response?
        let deadline = Date().addingTimeInterval(10)
        while drained == nil, Date() < deadline {
            let connection = try TestHTTPConnection(port: port)
            let response = try connection.request("GET", "/items/2")
            if response.status == 503 {
                drained = response
                #expect(connection.isClosedByServer())
            } else {
                #expect(response.status == 200)
            }
        }
        let refused = try #require(drained, "no 503 while draining")
        #expect(refused.headers["connection"]?.lowercased() == "close")
        #expect(refused.errorCode == "unavailable")
        // The connection kept alive from before the drain gets the same answer.
        let again = try keptAlive.request("GET", "/items/3")
        #expect(again.status == 503 && again.headers["connection"]?.lowercased() == "close")
        // Only the request in progress is waited for (a 200 of the loop above may still be
        // finishing: its completion can follow its answer).
        #expect(eventuallyBlocking { server.requestsInFlight == 1 }, "only the request in progress is waited for")
        let finishedEarly = finished.load(ordering: .relaxed)
        #expect(!finishedEarly, "the drain waits for it")

        try held.send(Array(body.dropFirst(8).utf8))
        let answer = try held.readResponse()
        #expect(answer.status == 200 && answer.json?["count"] as? Int == 2)
        stopped.wait()
        #expect(server.requestsInFlight == 0)
    }
}
