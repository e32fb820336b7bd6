import Foundation
import LivelineHTTP2
import Synchronization

/// A handler for tests: answers by path, and records what it saw.
///
/// - `/ok`: 200 with an `apns-id` header and no body
/// - `/echo`: 200 with the request body echoed
/// - `/error`: 400 `{"reason":"BadDeviceToken"}`
/// - `/slow`: 200 after 20 ms, answered from another thread (records the peak of concurrent requests)
/// - `/late`: 200 after 2.5 s, answered from another thread (the connection stays responsive)
/// - `/goaway`: 503 then GOAWAY `{"reason":"Shutdown"}`
/// - `/drop`: the connection is dropped without an answer
final class RecordingHandler: HTTP2RequestHandler, Sendable {
    let requests = Mutex<[HTTP2Request]>([])
    let closedConnections = Mutex<[UInt64]>([])
    private let concurrent = Mutex<(now: Int, peak: Int)>((0, 0))

    var peakConcurrency: Int { concurrent.withLock { $0.peak } }

    func handle(_ request: HTTP2Request, respond: @escaping @Sendable (HTTP2Response) -> Void) {
        requests.withLock { $0.append(request) }
        switch request.path {
        case "/ok":
            respond(HTTP2Response(status: 200, headers: [("apns-id", "3F2504E0-4F89-11D3-9A0C-0305E82C3301")]))
        case "/echo":
            respond(HTTP2Response(status: 200, body: request.body))
        case "/error":
            respond(HTTP2Response(status: 400, headers: [("content-type", "application/json")], body: Array(#"{"reason":"BadDeviceToken"}"#.utf8)))
        case "/slow":
            concurrent.withLock {
                $0.now += 1; $0.peak = max($0.peak, $0.now)
            }
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.02) {
                self.concurrent.withLock { $0.now -= 1 }
                respond(HTTP2Response(status: 200))
            }
        case "/late":
            DispatchQueue.global().asyncAfter(deadline: .now() + 2.5) { respond(HTTP2Response(status: 200)) }
        case "/goaway":
            respond(
                HTTP2Response(
                    status: 503, body: Array(#"{"reason":"Shutdown"}"#.utf8),
                    then: .goAway(errorCode: 0, debugData: Array(#"{"reason":"Shutdown"}"#.utf8))))
        case "/drop":
            respond(HTTP2Response(status: 500, then: .drop))
        default:
            respond(HTTP2Response(status: 404, body: Array(#"{"reason":"BadPath"}"#.utf8)))
        }
    }

    func connectionClosed(_ connectionID: UInt64) {
        closedConnections.withLock { $0.append(connectionID) }
    }
}
