import COpenSSL
import Foundation

/// An OpenSSL `SSL_CTX` for HTTP/2: TLS 1.2 or later, ALPN `h2`.
///
/// A server context presents a certificate and selects `h2` (a client offering no ALPN is served
/// HTTP/2 all the same, as APNs clients expect). A client context verifies the server against the
/// system's trust store or a given CA file and offers `h2`.
public final class TLSContext: @unchecked Sendable {
    // The SSL_CTX is configured once in init and only read afterwards (OpenSSL allows sharing it
    // between threads then), so the class may cross threads.
    let raw: OpaquePointer

    /// A server context with the certificate chain and key in PEM files.
    public static func server(certificateFile: String, privateKeyFile: String) throws -> TLSContext {
        let context = try TLSContext(method: TLS_server_method())
        guard SSL_CTX_use_certificate_chain_file(context.raw, certificateFile) == 1 else {
            throw HTTP2Error("could not load the TLS certificate \(certificateFile): \(TLSContext.lastError())")
        }
        guard SSL_CTX_use_PrivateKey_file(context.raw, privateKeyFile, SSL_FILETYPE_PEM) == 1,
            SSL_CTX_check_private_key(context.raw) == 1
        else {
            throw HTTP2Error("could not load the TLS key \(privateKeyFile) or it does not match the certificate: \(TLSContext.lastError())")
        }
        SSL_CTX_set_alpn_select_cb(context.raw, alpnSelect, nil)
        return context
    }

    /// A client context that trusts `caFile` when given, else the system's certificates.
    /// `verify: false` accepts any certificate (for tools pointed at a self-signed sandbox);
    /// `offerALPN: false` offers no protocol, as some APNs clients do.
    public static func client(caFile: String? = nil, verify: Bool = true, offerALPN: Bool = true) throws -> TLSContext {
        let context = try TLSContext(method: TLS_client_method())
        if verify {
            if let caFile {
                guard SSL_CTX_load_verify_locations(context.raw, caFile, nil) == 1 else {
                    throw HTTP2Error("could not load the CA file \(caFile): \(TLSContext.lastError())")
                }
            } else {
                SSL_CTX_set_default_verify_paths(context.raw)
            }
            SSL_CTX_set_verify(context.raw, SSL_VERIFY_PEER, nil)
        } else {
            SSL_CTX_set_verify(context.raw, SSL_VERIFY_NONE, nil)
        }
        if offerALPN {
            let protocols: [UInt8] = [2] + Array("h2".utf8)
            SSL_CTX_set_alpn_protos(context.raw, protocols, UInt32(protocols.count))
        }
        return context
    }

    private init(method: OpaquePointer?) throws {
        guard let context = SSL_CTX_new(method) else { throw HTTP2Error("SSL_CTX_new failed: \(TLSContext.lastError())") }
        raw = context
        _ = copenssl_ctx_set_min_proto_version(context, TLS1_2_VERSION)
        // No SSL_MODE_RELEASE_BUFFERS: it frees a connection's 16 KiB record buffers whenever they
        // are drained and allocates them again on the next record, i.e. on every event-loop pass of
        // a busy connection.
        _ = copenssl_ctx_set_mode(context, Int(SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER))
        // Read ahead: one read(2) takes every record the socket holds (up to the buffer), instead of
        // one for each record's 5-byte header and another for its body. `HTTP2Session` reads until
        // OpenSSL wants more, so nothing stays buffered unseen.
        _ = SSL_CTX_ctrl(context, SSL_CTRL_SET_READ_AHEAD, 1, nil)
        // HTTP/2 forbids TLS renegotiation (RFC 9113 §9.2.1); compression is off in OpenSSL 3 already.
        _ = copenssl_ctx_set_options(context, Int(COPENSSL_OP_NO_RENEGOTIATION))
    }

    deinit { SSL_CTX_free(raw) }

    /// OpenSSL's most recent error, as text.
    static func lastError() -> String {
        let code = ERR_get_error()
        guard code != 0 else { return "no detail from OpenSSL" }
        var buffer = [CChar](repeating: 0, count: 256)
        ERR_error_string_n(code, &buffer, buffer.count)
        ERR_clear_error()
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

/// Selects `h2` from the client's ALPN list; with no `h2` offered, negotiates nothing (the
/// connection still speaks HTTP/2).
private let alpnSelect:
    @convention(c) (
        OpaquePointer?, UnsafeMutablePointer<UnsafePointer<UInt8>?>?, UnsafeMutablePointer<UInt8>?,
        UnsafePointer<UInt8>?, UInt32, UnsafeMutableRawPointer?
    ) -> Int32 = { _, out, outLength, input, inputLength, _ in
        guard let out, let outLength, let input else { return SSL_TLSEXT_ERR_NOACK }
        var index = 0
        while index < Int(inputLength) {
            let length = Int(input[index])
            if length == 2, index + 2 < Int(inputLength), input[index + 1] == UInt8(ascii: "h"), input[index + 2] == UInt8(ascii: "2") {
                out.pointee = input + index + 1
                outLength.pointee = 2
                return SSL_TLSEXT_ERR_OK
            }
            index += 1 + length
        }
        return SSL_TLSEXT_ERR_NOACK
    }
