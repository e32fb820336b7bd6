import Foundation
import LivelineHTTP2
import LivelineTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// The client's liveness check (`livenessTimeout`): a connection whose server falls silent with a
/// request in flight is PINGed and, when nothing answers, closed so the request fails as lost
/// (its caller sends it elsewhere); a server that is slow but answers the PING keeps its
/// connection (`docs/reliability.md`, "Network faults").
@Suite struct HTTP2ClientLivenessTests {
    /// A server that opens the HTTP/2 session (its SETTINGS, and the ACK of the client's) and then
    /// never sends another byte: a path that went dead after the handshake.
    final class SilentServer: Sendable {
        let port: Int
        private let listener: Int32

        init() throws {
            let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            self.listener = listener
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            let bound = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    bind(listener, pointer, length) == 0 && listen(listener, 8) == 0 && getsockname(listener, pointer, &length) == 0
                }
            }
            guard bound else { throw ListenFailed() }
            port = Int(UInt16(bigEndian: address.sin_port))
            Thread.detachNewThread { [listener] in
                let connection = accept(listener, nil, nil)
                guard connection >= 0 else { return }
                // SETTINGS (empty), then SETTINGS with ACK: frame header only (RFC 9113 §6.5).
                let frames: [UInt8] = [0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 0, 4, 1, 0, 0, 0, 0]
                _ = frames.withUnsafeBytes { send(connection, $0.baseAddress, $0.count, 0) }
                // Never written to again; what the client sends is read and ignored until it
                // closes the connection.
                var buffer = [UInt8](repeating: 0, count: 4096)
                while buffer.withUnsafeMutableBytes({ recv(connection, $0.baseAddress, $0.count, 0) }) > 0 {}
                close(connection)
            }
        }

        func stop() {
            shutdown(listener, Int32(SHUT_RDWR))
            close(listener)
        }
    }

    struct ListenFailed: Error {}

    /// The answer and when it came.
    final class Outcome: Sendable {
        let value = Mutex<(Result<HTTP2ClientResponse, HTTP2ClientFailure>, ContinuousClock.Instant)?>(nil)
    }

    static let loop = try! EventLoop(name: "h2-liveness-client")

    @Test func aServerThatFallsSilentWithARequestInFlightLosesTheConnectionAfterAnUnansweredPing() async throws {
        let server = try SilentServer()
        defer { server.stop() }
        let client = try HTTP2ClientConnection(host: "127.0.0.1", port: server.port, tls: nil, loop: Self.loop, livenessTimeout: 0.4)
        // Timed on the loop thread, where the answer comes: the test's own task may wait long to
        // run again while the rest of the suite keeps the cooperative threads busy.
        let outcome = Outcome()
        let started = ContinuousClock.now
        client.send(HTTP2ClientRequest(path: "/ok")) { result in outcome.value.withLock { $0 = (result, .now) } }
        #expect(await eventually(timeout: 120) { outcome.value.withLock { $0 != nil } })
        let (result, at) = try #require(outcome.value.withLock { $0 })
        switch result {
        case .success(let response):
            Issue.record("a silent server answered \(response.status)")
        case .failure(let error):
            #expect(error.kind == .connectionLost, "\(error)")
            #expect(error.message.contains("not even a PING's answer"), "\(error.message)")
        }
        let took = at - started
        // A PING after 0.4 s of silence, the connection given up 0.4 s later (checked every 0.1 s;
        // a loaded machine may run the checks late, never early).
        #expect(took >= .milliseconds(700) && took < .seconds(30), "\(took)")
        #expect(!client.isUsable)
    }

    @Test func aSlowServerThatAnswersThePingKeepsItsConnection() async throws {
        let (server, _) = try HTTP2ServerTests.start(tls: false)
        defer { server.shutdown() }
        let client = try HTTP2ClientConnection(host: "127.0.0.1", port: server.port, tls: nil, loop: Self.loop, livenessTimeout: 1)
        let response = try await client.send(HTTP2ClientRequest(path: "/late"))
        #expect(response.status == 200)
        #expect(client.isUsable, "the connection answered its PINGs while the response was slow")
        #expect(try await client.send(HTTP2ClientRequest(path: "/ok")).status == 200)
    }
}
