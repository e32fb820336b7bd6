import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A port on 127.0.0.1 where nothing answers, for as long as this value lives: a socket bound to
/// it that never listens. Connections are refused, and no other test can bind the port meanwhile
/// — unlike the port of a server that was stopped, which the system may give to the next server
/// any test starts.
public final class DeadPort: Sendable {
    public let port: Int
    private let socket: Int32

    public init() throws {
        let descriptor = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw TestHTTPConnection.Failure(description: "socket() failed: \(String(cString: strerror(errno)))") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard bound else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            throw TestHTTPConnection.Failure(description: "bind to 127.0.0.1:0 failed: \(reason)")
        }
        socket = descriptor
        port = Int(UInt16(bigEndian: address.sin_port))
    }

    /// `http://127.0.0.1:<port>`.
    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    deinit { close(socket) }
}
