import Foundation
import LivelineHTTP
import LivelineModel
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
