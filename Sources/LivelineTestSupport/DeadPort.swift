import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A port on 127.0.0.1 where nothing answers, for as long as this value lives: a socket bound to
/// it that never listens. Connections are refused, and no other test can bind the port meanwhile
/// — unlike the port of a server that was stopped, which the system may give to the next server
/// any test starts.
///
/// ``silent()`` makes one that listens and never accepts: the system completes connections and
/// takes the requests, and nothing ever answers — a server that hangs.
public final class DeadPort: Sendable {
    public let port: Int
    private let socket: Int32
    private let closed = Atomic<Bool>(false)

    /// A port whose connections are made and never answered (until ``close()``, which resets
    /// them).
    public static func silent() throws -> DeadPort {
        let port = try DeadPort(port: 0)
        guard listen(port.socket, 64) == 0 else {
            throw TestHTTPConnection.Failure(description: "listen() failed: \(String(cString: strerror(errno)))")
        }
        return port
    }

    public convenience init() throws { try self.init(port: 0) }

    /// A dead port the system never hands out for port 0: below its ephemeral range (Linux'
    /// default starts at 32768), so a server another test starts on port 0 cannot get it after
    /// this value is released either (tests that need a free port nobody else will take).
    public static func outsideEphemeralRange() throws -> DeadPort {
        var lastError: (any Error)?
        for _ in 0..<200 {
            do { return try DeadPort(port: Int.random(in: 20_000..<32_000)) } catch { lastError = error }
        }
        throw lastError ?? TestHTTPConnection.Failure(description: "no free port below the ephemeral range")
    }

    /// Binds `port` (0: any free one).
    public init(port requested: Int) throws {
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw TestHTTPConnection.Failure(description: "socket() failed: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(requested).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else {
            let reason = String(cString: strerror(errno))
            Glibc.close(descriptor)
            throw TestHTTPConnection.Failure(description: "bind to 127.0.0.1:\(requested) failed: \(reason)")
        }
        socket = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// `http://127.0.0.1:<port>`.
    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Closes the socket now (a silent port's waiting connections are reset).
    public func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        _ = Glibc.close(socket)
    }

    deinit { close() }
}
