internal import COpenSSL

/// The few helpers every OpenSSL call site in this module shares: return-code checks that turn
/// OpenSSL's thread-local error queue into a `CryptoError` (and empty it), and memory BIOs.
///
/// OpenSSL's error strings name a library and a reason (e.g. "DECODER routines::unsupported"),
/// never the input, so they are safe to put in messages.
enum LibCrypto {
    /// Throws when an OpenSSL call returned something other than 1 (its usual success value).
    static func check(_ result: Int32, _ what: @autoclosure () -> String, code: CryptoError.Code = .openSSL) throws(CryptoError) {
        guard result == 1 else { throw failure(what(), code: code) }
    }

    /// Unwraps a pointer an OpenSSL call returned, throwing when it is nil.
    @discardableResult
    static func check<T>(_ pointer: T?, _ what: @autoclosure () -> String, code: CryptoError.Code = .openSSL) throws(CryptoError) -> T {
        guard let pointer else { throw failure(what(), code: code) }
        return pointer
    }

    /// A `CryptoError` saying `what` failed, with OpenSSL's last reason; empties the error queue so
    /// a later, unrelated call on this thread (e.g. `SSL_get_error`) does not see stale errors.
    static func failure(_ what: String, code: CryptoError.Code = .openSSL) -> CryptoError {
        let reason = lastErrorReason()
        return CryptoError(code, reason.map { "\(what) (OpenSSL: \($0))" } ?? what)
    }

    /// Empties this thread's OpenSSL error queue (after a failure that is answered with `false`).
    static func clearErrors() {
        ERR_clear_error()
    }

    /// The reason of the most recent queued error, then clears the queue.
    private static func lastErrorReason() -> String? {
        let code = ERR_peek_last_error()
        defer { ERR_clear_error() }
        guard code != 0 else { return nil }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    /// Runs `body` with a read-only memory BIO over the UTF-8 bytes of `text`.
    static func withReadBIO<R>(_ text: String, _ body: (OpaquePointer) throws(CryptoError) -> R) throws(CryptoError) -> R {
        let bytes = Array(text.utf8)
        let result: Result<R, CryptoError> = bytes.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else {
                return .failure(failure("BIO_new_mem_buf failed"))
            }
            defer {
                BIO_free(bio)
                // OpenSSL 3's decoders may leave reasons from formats they tried even on success.
                ERR_clear_error()
            }
            do throws(CryptoError) { return .success(try body(bio)) } catch { return .failure(error) }
        }
        return try result.get()
    }

    /// Runs `write` with an empty memory BIO and returns what it wrote, as text.
    static func writtenText(_ what: String, _ write: (OpaquePointer) -> Int32) throws(CryptoError) -> String {
        guard let bio = BIO_new(BIO_s_mem()) else { throw failure("BIO_new failed") }
        defer { BIO_free(bio) }
        try check(write(bio), what)
        let count = Int(BIO_ctrl_pending(bio))
        var bytes = [UInt8](repeating: 0, count: count)
        let read = bytes.withUnsafeMutableBytes { BIO_read(bio, $0.baseAddress, Int32(count)) }
        guard read == count else { throw failure("\(what): short read from memory BIO") }
        return String(decoding: bytes, as: UTF8.self)
    }
}
