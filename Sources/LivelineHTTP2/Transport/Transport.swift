#if canImport(Glibc)
import Glibc
#endif

/// The byte pipe under an HTTP/2 session: a plain socket (h2c) or TLS over it. Non-blocking:
/// operations that cannot proceed now say so and the event loop calls again when it can.
protocol Transport: AnyObject {
    var fd: Int32 { get }
    /// Continues the handshake; `.done` once data can flow.
    func handshake() -> TransportProgress
    /// Reads into `buffer`: the count, 0 at end of stream, or nil when it would block.
    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int?
    /// Writes from `bytes`: how many were taken (0 when it would block).
    func write(_ bytes: UnsafeRawBufferPointer) throws -> Int
    /// Whether the handshake is waiting to write (then the loop must watch for writability).
    var wantsWrite: Bool { get }
    /// The negotiated ALPN protocol, if any.
    var applicationProtocol: String? { get }
    /// Ends the sending direction (TLS close_notify, then a TCP FIN) while reads go on.
    func shutdownWrites()
    func close()
}

enum TransportProgress {
    case done
    case wouldBlock
    case failed(String)
}
