import Dispatch
import LivelineHTTP2
import LivelineScheduling

/// Serves one of the sandbox's HTTP/2 ports: asks the core for the answer and sends it, later and
/// from another thread when a latency fault is set.
struct SandboxRequestHandler: HTTP2RequestHandler {
    let core: SandboxCore
    let port: SandboxPort

    func handle(_ request: HTTP2Request, respond: @escaping @Sendable (HTTP2Response) -> Void) {
        let (response, delay) = core.answer(request, on: port)
        guard let delay, delay > .zero else { return respond(response) }
        Scheduler.after(delay) { respond(response) }
    }

    func connectionClosed(_ connectionID: UInt64) {
        core.connectionClosed(ConnectionKey(port: port, id: connectionID))
    }
}
