import COpenSSL
#if canImport(Glibc)
import Glibc
#endif

/// TLS over a non-blocking socket, with OpenSSL's `SSL` object owned here.
final class TLSTransport: Transport {
    let fd: Int32
    private let ssl: OpaquePointer
    private var closed = false
    private(set) var wantsWrite = false
    private var handshakeDone = false
    private var connector: TCPConnector?

    /// OpenSSL's socket BIO writes with `write(2)`, not `send(…, MSG_NOSIGNAL)` like
    /// `PlainTransport`, so a write to a connection the peer has just reset raises SIGPIPE, whose
    /// default action kills the process. It is ignored once, process-wide (the write then fails
    /// with EPIPE and the connection closes as it should).
    private static let ignoreBrokenPipes: Void = {
        signal(SIGPIPE, SIG_IGN)
    }()

    /// A client over a connect in progress, checking the certificate for `serverName`.
    convenience init(connector: TCPConnector, context: TLSContext, serverName: String) throws {
        try self.init(fd: connector.fd, context: context, serverName: serverName)
        self.connector = connector
    }

    /// `serverName` makes it a client (SNI and certificate host check); nil makes it a server.
    init(fd: Int32, context: TLSContext, serverName: String?) throws {
        _ = Self.ignoreBrokenPipes
        guard let ssl = SSL_new(context.raw) else { throw HTTP2Error("SSL_new failed: \(TLSContext.lastError())") }
        self.fd = fd
        self.ssl = ssl
        SSL_set_fd(ssl, fd)
        if let serverName {
            if serverName.first?.isNumber == false { _ = copenssl_set_tlsext_host_name(ssl, serverName) }
            let checked =
                serverName.first?.isNumber == true
                ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), serverName) : SSL_set1_host(ssl, serverName)
            if checked != 1 { throw HTTP2Error("bad TLS host name \(serverName)") }
            SSL_set_connect_state(ssl)
        } else {
            SSL_set_accept_state(ssl)
        }
    }

    func handshake() -> TransportProgress {
        if handshakeDone { return .done }
        if let connector {
            do {
                guard try connector.poll() else {
                    wantsWrite = true
                    return .wouldBlock
                }
            } catch {
                return .failed("\(error)")
            }
        }
        // SSL_get_error reads this thread's error queue, which other connections on the same
        // loop thread may have left entries in: clear it before every TLS operation.
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            handshakeDone = true
            wantsWrite = false
            return .done
        }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ:
            wantsWrite = false
            return .wouldBlock
        case SSL_ERROR_WANT_WRITE:
            wantsWrite = true
            return .wouldBlock
        default:
            let verify = SSL_get_verify_result(ssl)
            let detail = verify == X509_V_OK ? TLSContext.lastError() : String(cString: X509_verify_cert_error_string(verify))
            return .failed("TLS handshake failed: \(detail)")
        }
    }

    var applicationProtocol: String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws -> Int? {
        ERR_clear_error()
        let count = SSL_read(ssl, buffer.baseAddress, Int32(buffer.count))
        if count > 0 { return Int(count) }
        switch SSL_get_error(ssl, count) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return nil
        case SSL_ERROR_ZERO_RETURN: return 0
        case SSL_ERROR_SYSCALL where errno == 0 || errno == ECONNRESET: return 0
        default: throw HTTP2Error("TLS read failed: \(TLSContext.lastError())")
        }
    }

    func write(_ bytes: UnsafeRawBufferPointer) throws -> Int {
        guard bytes.count > 0 else { return 0 }
        ERR_clear_error()
        let count = SSL_write(ssl, bytes.baseAddress, Int32(min(bytes.count, Int(Int32.max))))
        if count > 0 { return Int(count) }
        switch SSL_get_error(ssl, count) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return 0
        default: throw HTTP2Error("TLS write failed: \(TLSContext.lastError())")
        }
    }

    func shutdownWrites() {
        guard !closed else { return }
        ERR_clear_error()
        if handshakeDone { SSL_shutdown(ssl) }
        Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    func close() {
        guard !closed else { return }
        closed = true
        if handshakeDone { SSL_shutdown(ssl) }
        Glibc.close(fd)
    }

    deinit {
        close()
        SSL_free(ssl)
    }
}
