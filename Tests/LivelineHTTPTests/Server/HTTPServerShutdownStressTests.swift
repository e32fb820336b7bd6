import Foundation
import LivelineHTTP
import LivelineModel
import LivelineTestSupport
import Synchronization
import Testing

/// Shutdown under load, many times over. libmicrohttpd 0.9.75 aborted the process ("Failed to
/// remove listen FD from epoll set") when a worker thread woke up at the moment the server was
/// stopped (see `HTTPServer`), so every server here is stopped while clients keep connecting to
/// it: each new connection wakes every worker.
@Suite struct HTTPServerShutdownStressTests {
    /// Servers stopped in all (`LIVELINE_STRESS_SERVERS` runs more, to hunt for a rare abort).
    static let servers = Int(ProcessInfo.processInfo.environment["LIVELINE_STRESS_SERVERS"] ?? "") ?? 400
    /// Servers alive at once.
    static let concurrency = 2
    /// Worker threads per server: the more workers, the more chances a stop meets one awake.
    static let threads = 8

    @Test func hundredsOfServersStartedLoadedAndStoppedConcurrentlyNeverAbort() throws {
        let answered = Atomic<Int>(0)
        let unexpected = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: Self.concurrency) { lane in
            for _ in 0..<(Self.servers / Self.concurrency) {
                var router = Router()
                router.add(Route(.get, "/ping")) { _ in .jsonBytes(Array(#"{"ok":true}"#.utf8)) }
                let server = HTTPServer(
                    configuration: HTTPServerConfiguration(host: "127.0.0.1", port: 0, threads: Self.threads),
                    router: router, accessLog: .discarding()
                )
                do { try server.start() } catch {
                    unexpected.withLock { $0.append("lane \(lane): \(error)") }
                    continue
                }
                let port = server.port
                let connected = Atomic<Int>(0)
                let stop = Atomic<Bool>(false)
                let clients = DispatchGroup()
                // One client asks (200 before the stop, 503 while draining, nothing else), two
                // only connect and leave, as fast as they can.
                for client in 0..<3 {
                    DispatchQueue.global().async(group: clients) {
                        while !stop.load(ordering: .relaxed) {
                            guard let connection = try? TestHTTPConnection(port: port, timeout: 5) else { continue }
                            connected.add(1, ordering: .relaxed)
                            guard client == 0, let response = try? connection.request("GET", "/ping") else { continue }
                            if response.status == 200 || response.status == 503 {
                                answered.add(1, ordering: .relaxed)
                            } else {
                                unexpected.withLock { $0.append("status \(response.status)") }
                            }
                        }
                    }
                }
                // Stop it in the middle of the traffic.
                let deadline = Date().addingTimeInterval(5)
                while connected.load(ordering: .relaxed) < 3, Date() < deadline { usleep(100) }
                server.shutdown(timeout: .seconds(5))
                stop.store(true, ordering: .relaxed)
                clients.wait()
            }
        }
        #expect(unexpected.withLock { $0 }.isEmpty, "\(unexpected.withLock { $0.prefix(5) })")
        #expect(answered.load(ordering: .relaxed) > 0, "the clients reached the servers")
    }
}
