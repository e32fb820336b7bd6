#if canImport(Glibc)
import Glibc
#endif

/// A non-blocking TCP socket without TLS (HTTP/2 with prior knowledge, "h2c").
final class PlainTransport: Transport {
    let fd: Int32
    private var closed = false
    private let connector: TCPConnector?
    private(set) var wantsWrite = false

    init(fd: Int32) {
        self.fd = fd
        connector = nil
    }

    /// A client transport over a connect in progress.
    init(connector: TCPConnector) {
        self.fd = connector.fd
        self.connector = connector
    }

    func handshake() -> TransportProgress {
        guard let connector else { return .done }
        do {
            wantsWrite = try !connector.poll()
            return wantsWrite ? .wouldBlock : .done
        } catch {
            return .failed("\(error)")
        }
    }
    var applicationProtocol: String? { nil }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int? {
        let count = Glibc.read(fd, buffer.baseAddress, buffer.count)
        if count >= 0 { return count }
        if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return nil }
        throw HTTP2Error.system("read")
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws -> Int {
        let count = send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
        if count >= 0 { return count }
        if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR { return 0 }
        throw HTTP2Error.system("send")
    }

    func shutdownWrites() {
        guard !closed else { return }
        Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    func close() {
        guard !closed else { return }
        closed = true
        Glibc.close(fd)
    }

    deinit { close() }
}
