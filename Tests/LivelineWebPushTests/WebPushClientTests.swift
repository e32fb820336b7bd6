import Foundation
import LivelineHTTP
import LivelineModel
import LivelinePushWire
import LivelineSandbox
import LivelineTestSupport
import LivelineWebPush
import Synchronization
import Testing

/// The libcurl client against a real HTTP/1.1 server on this machine (the project's
/// libmicrohttpd server): what it sends, what it reads back, and what it says without an answer.
@Suite struct WebPushClientTests {
    /// A push service stand-in: records each request, answers what `answer` says. (The project's
    /// server takes JSON bodies only, so these requests say they are JSON.)
    final class Receiver: Sendable {
        final class Log: Sendable {
            let requests = Mutex<[HTTPRequest]>([])
        }
        let server: HTTPServer
        let log = Log()

        init(answer: @escaping @Sendable (Int) -> HTTPResponse) throws {
            var router = Router()
            let log = self.log
            router.add(Route(.post, "/push/{id}")) { request in
                let count = log.requests.withLock { list in
                    list.append(request)
                    return list.count
                }
                return answer(count)
            }
            server = HTTPServer(
                configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, threads: 2), router: router, accessLog: .discarding())
            try server.start()
        }

        var endpoint: String { "http://127.0.0.1:\(server.port)/push/abc" }
    }

    static func send(_ client: WebPushClient, _ request: WebPushRequest) async -> WebPushResponse {
        await withCheckedContinuation { continuation in client.send(request) { continuation.resume(returning: $0) } }
    }

    @Test func theHeadersAndBodyArriveAndTheAnswerIsReadBack() async throws {
        let receiver = try Receiver { count in
            var headers = HTTPHeaders()
            headers.add("Location", "/message/\(count)")
            if count == 2 { headers.add("Retry-After", "7") }
            return HTTPResponse(status: count == 2 ? 429 : 201, headers: headers, body: .bytes(Array(#"{"reason":"TooManyRequests"}"#.utf8)))
        }
        defer { receiver.server.shutdown() }
        let client = try WebPushClient(allowInsecure: true)
        defer { client.shutdown() }
        let body = (0..<300).map { UInt8($0 % 256) }
        let request = WebPushRequest(
            endpoint: receiver.endpoint,
            headers: [
                .init("TTL", "60"), .init("Urgency", "high"), .init("Topic", "shopping"), .init("Content-Encoding", "aes128gcm"),
                .init("Content-Type", "application/json"),
            ],
            body: body)
        let first = await Self.send(client, request)
        #expect(first.status == 201 && first.location == "/message/1" && first.retryAfter == nil && first.transportError == nil, "\(first)")
        let second = await Self.send(client, request)
        #expect(second.status == 429 && second.retryAfter == 7 && second.body.contains("TooManyRequests"))
        let got = try #require(receiver.log.requests.withLock { $0.first })
        #expect(got.body == body, "the body byte for byte")
        #expect(got.headers["TTL"] == "60" && got.headers["Urgency"] == "high" && got.headers["Topic"] == "shopping")
        #expect(got.headers["Content-Encoding"] == "aes128gcm" && got.headers["Expect"] == nil)
    }

    @Test func manyPushesAtOnceAreAllAnswered() throws {
        let receiver = try Receiver { _ in HTTPResponse(status: 201) }
        defer { receiver.server.shutdown() }
        let client = try WebPushClient(allowInsecure: true)
        defer { client.shutdown() }
        let answered = Atomic<Int>(0)
        let done = DispatchSemaphore(value: 0)
        for index in 0..<200 {
            let headers: [WebPushRequest.Header] = [.init("TTL", "0"), .init("Content-Type", "application/json")]
            client.send(WebPushRequest(endpoint: receiver.endpoint, headers: headers, body: Array("\(index)".utf8))) { response in
                if response.status == 201 { answered.add(1, ordering: .relaxed) }
                done.signal()
            }
        }
        for _ in 0..<200 { #expect(done.wait(timeout: .now() + 30) == .success) }
        #expect(answered.load(ordering: .relaxed) == 200)
        #expect(receiver.log.requests.withLock { $0.count } == 200)
    }

    @Test func withoutAnAnswerTheStatusIsZeroAndTheReasonIsSaid() async throws {
        let dead = try DeadPort()
        let client = try WebPushClient(timeout: 5, allowInsecure: true)
        defer { client.shutdown() }
        let response = await Self.send(client, WebPushRequest(endpoint: "http://127.0.0.1:\(dead.port)/push/x", headers: [], body: [1]))
        #expect(response.status == 0)
        #expect((response.transportError ?? "").lowercased().contains("connect"), "\(response.transportError ?? "")")
        let refused = await Self.send(client, WebPushRequest(endpoint: "ftp://127.0.0.1/x", headers: [], body: [1]))
        #expect(refused.status == 0 && refused.transportError != nil, "only http and https")
    }

    @Test func withoutTheSettingOnlyHTTPSIsSpoken() async throws {
        let receiver = try Receiver { _ in HTTPResponse(status: 201) }
        defer { receiver.server.shutdown() }
        let client = try WebPushClient()
        defer { client.shutdown() }
        let response = await Self.send(client, WebPushRequest(endpoint: receiver.endpoint, headers: [.init("TTL", "0")], body: []))
        #expect(response.status == 0 && response.transportError?.contains("http") == true, "\(response)")
        #expect(receiver.log.requests.withLock { $0.isEmpty }, "nothing reached the plain-http receiver")
    }

    /// HTTP/2 over TLS (as the big push services speak it): the APNs sandbox stands in, an HTTP/2
    /// server with its own certificate; it refuses these requests (no provider token), which is
    /// an answer all the same.
    @Test func anHTTP2ServiceOverTLSGetsEveryPushOnOneKeptConnection() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-h2-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sandbox = try APNSSandbox.start(SandboxConfiguration(folder: folder))
        defer { sandbox.stop() }
        // Loopback is allowed only with the setting; the scheme stays https.
        let client = try WebPushClient(timeout: 20, caFile: sandbox.certificateFile.path, allowInsecure: true)
        defer { client.shutdown() }
        let endpoint = "\(sandbox.deviceURL)/3/device/\(String(repeating: "ab", count: 32))"
        let answered = Mutex<[Int]>([])
        let done = DispatchSemaphore(value: 0)
        func send(_ count: Int) {
            for index in 0..<count {
                client.send(WebPushRequest(endpoint: endpoint, headers: [.init("TTL", "0")], body: Array("\(index)".utf8))) { response in
                    answered.withLock { $0.append(response.status) }
                    done.signal()
                }
            }
            for _ in 0..<count { #expect(done.wait(timeout: .now() + 30) == .success) }
        }
        send(1)  // the connection is made, and the service is known to speak HTTP/2
        send(150)  // more at once than the 8 an HTTP/1.1 service gets
        let statuses = answered.withLock { $0 }
        #expect(statuses.count == 151 && !statuses.contains(0), "every push answered: \(Set(statuses))")
        #expect(sandbox.connectionCount == 1, "one connection, multiplexed and kept alive")
    }

    @Test func anAddressNoPushServiceHasIsNotConnectedTo() async throws {
        // A silent port: were the client to connect, the push would wait for its timeout instead.
        let silent = try DeadPort.silent()
        defer { silent.close() }
        let client = try WebPushClient(timeout: 30)
        defer { client.shutdown() }
        // A host name resolving to this machine, and address literals of it and of private networks.
        for (endpoint, says) in [
            ("https://localhost:\(silent.port)/push/x", "a loopback address"), ("https://127.0.0.1:\(silent.port)/push/x", "127.0.0.1, a loopback"),
            ("https://[::ffff:127.0.0.1]:\(silent.port)/push/x", "127.0.0.1, a loopback"), ("https://10.1.2.3:9/push/x", "10.1.2.3, a private"),
            ("https://169.254.169.254/latest", "169.254.169.254, a link-local"),
        ] {
            let response = await Self.send(client, WebPushRequest(endpoint: endpoint, headers: [], body: [1]))
            #expect(response.status == 0, "\(endpoint)")
            #expect(response.transportError?.contains("not sent: the push service's host resolved to") == true, "\(endpoint): \(response)")
            #expect(response.transportError?.contains(says) == true, "\(endpoint): \(response)")
        }
    }

    @Test func addressesArePublicOrSaidWhyNot() {
        let cases: [([UInt8], Bool, String?)] = [
            ([8, 8, 8, 8], false, nil), ([172, 32, 0, 1], false, nil), ([100, 128, 0, 1], false, nil),
            ([127, 0, 0, 1], false, "loopback"), ([127, 0, 0, 1], true, nil), ([10, 0, 0, 1], true, "private"),
            ([172, 16, 5, 5], false, "private"), ([192, 168, 1, 1], false, "private"), ([100, 64, 0, 1], false, "carrier-grade"),
            ([169, 254, 1, 1], false, "link-local"), ([0, 0, 0, 0], false, "this network"), ([224, 0, 0, 1], false, "multicast"),
            ([255, 255, 255, 255], false, "multicast or reserved"),
            (Array(repeating: 0, count: 15) + [1], false, "loopback"), (Array(repeating: 0, count: 15) + [1], true, nil),
            (Array(repeating: 0, count: 16), true, "unspecified"), ([0xfd] + Array(repeating: 0, count: 14) + [1], false, "unique local"),
            ([0xfe, 0x80] + Array(repeating: 0, count: 14), false, "link-local"),
            ([0xff, 0x02] + Array(repeating: 0, count: 14), false, "multicast"),
            (Array(repeating: 0, count: 10) + [0xff, 0xff, 192, 168, 0, 1], false, "private"),
            ([0x20, 0x01, 0x0d, 0xb8] + Array(repeating: 0, count: 12), false, nil), ([1, 2, 3], false, "not an IPv4 or IPv6"),
        ]
        for (bytes, loopback, says) in cases {
            let refusal = PushServiceAddress.refusal(bytes, allowLoopback: loopback)
            if let says {
                #expect(refusal?.contains(says) == true, "\(PushServiceAddress.text(bytes)): \(refusal ?? "allowed")")
            } else {
                #expect(refusal == nil, "\(PushServiceAddress.text(bytes)): \(refusal ?? "")")
            }
        }
    }

    /// Pushes in flight or still queued when the client stops are answered (as failed), never lost.
    @Test func aShutdownAnswersEveryPushInFlightAndQueued() throws {
        // A receiver that holds each request for a while.
        let receiver = try Receiver { _ in
            Thread.sleep(forTimeInterval: 0.3)
            return HTTPResponse(status: 201)
        }
        defer { receiver.server.shutdown() }
        let client = try WebPushClient(allowInsecure: true)
        let answered = Atomic<Int>(0)
        let done = DispatchSemaphore(value: 0)
        let headers: [WebPushRequest.Header] = [.init("TTL", "0"), .init("Content-Type", "application/json")]
        for index in 0..<50 {
            client.send(WebPushRequest(endpoint: receiver.endpoint, headers: headers, body: Array("\(index)".utf8))) { _ in
                answered.add(1, ordering: .relaxed)
                done.signal()
            }
        }
        Thread.sleep(forTimeInterval: 0.05)
        #expect(client.shutdown())
        for _ in 0..<50 { #expect(done.wait(timeout: .now() + 10) == .success) }
        #expect(answered.load(ordering: .relaxed) == 50)
    }

    @Test func afterShutdownPushesAreAnsweredAsFailed() async throws {
        let client = try WebPushClient(allowInsecure: true)
        #expect(client.shutdown())
        let response = await Self.send(client, WebPushRequest(endpoint: "http://127.0.0.1:9/push/x", headers: [], body: []))
        #expect(response.status == 0 && response.transportError?.contains("shut down") == true)
    }

    @Test func theOriginIsTheVAPIDAudience() throws {
        #expect(try VAPIDIdentity.origin(of: "https://fcm.googleapis.com/fcm/send/abc") == "https://fcm.googleapis.com")
        #expect(try VAPIDIdentity.origin(of: "https://Push.Example:443/x") == "https://push.example")
        #expect(try VAPIDIdentity.origin(of: "http://127.0.0.1:8089/push/1") == "http://127.0.0.1:8089")
        #expect(throws: WebPushError.self) { try VAPIDIdentity.origin(of: "not a url") }
        #expect(WebPushMessage.isValidTopic("shopping-2026_W02") && !WebPushMessage.isValidTopic(String(repeating: "a", count: 33)))
        #expect(!WebPushMessage.isValidTopic("a/b") && !WebPushMessage.isValidTopic(""))
    }
}
