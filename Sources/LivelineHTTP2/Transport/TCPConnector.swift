import CLinux
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A non-blocking TCP connect in progress: `poll()` says when it is done.
final class TCPConnector {
    let fd: Int32
    private var address: sockaddr_storage
    private let length: socklen_t
    private(set) var connected = false

    /// Resolves `host` (uncached, as Apple advises before each new connection) and starts connecting.
    init(host: String, port: Int) throws {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_family = AF_UNSPEC
        var results: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(host, String(port), &hints, &results)
        guard status == 0, let first = results else {
            throw HTTP2Error("could not resolve \(host): \(String(cString: gai_strerror(status)))")
        }
        defer { freeaddrinfo(results) }
        var storage = sockaddr_storage()
        withUnsafeMutableBytes(of: &storage) { target in
            target.copyMemory(from: UnsafeRawBufferPointer(start: first.pointee.ai_addr, count: Int(first.pointee.ai_addrlen)))
        }
        address = storage
        length = first.pointee.ai_addrlen
        fd = socket(first.pointee.ai_family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { throw HTTP2Error.system("socket") }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        if try attempt() == false { return }
    }

    /// Whether the connection is established; throws when it failed.
    func poll() throws -> Bool {
        if connected { return true }
        return try attempt()
    }

    private func attempt() throws -> Bool {
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, length) }
        }
        if result == 0 || errno == EISCONN {
            connected = true
            return true
        }
        if errno == EINPROGRESS || errno == EALREADY || errno == EINTR { return false }
        throw HTTP2Error.system("connect")
    }
}
