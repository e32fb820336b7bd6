import CMicroHTTPD
import Foundation

/// Requests the protocol rules out, answered in the JSON error shape on the first call of the
/// access handler (the headers), from what libmicrohttpd parsed: the checks read its values and
/// never parse HTTP themselves. Each closes the connection (`Connection: close`): what follows
/// such a request on it cannot be trusted to be the next request. The two checks of the target
/// (414 and `nulInTarget`) are `Responder`'s, which a request answered in-process passes too.
///
/// - 414 `uriTooLong`: the request target as sent is over `maxTargetBytes` (RFC 9110 §15.5.15,
///   https://www.rfc-editor.org/rfc/rfc9110#section-15.5.15).
/// - 431 `headersTooLarge`: request line plus header fields are over `maxHeaderBytes`, as
///   libmicrohttpd counts them (`MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE`; RFC 6585 §5,
///   https://www.rfc-editor.org/rfc/rfc6585#section-5).
/// - 400 `nulInTarget`: the target holds `%00`, which libmicrohttpd decodes into its C strings
///   of the path and query values, so that they end there: what the handler saw would not be
///   what was sent.
/// - 400 `missingHost`: HTTP/1.1 without `Host` (RFC 9112 §3.2, "MUST respond with a 400",
///   https://www.rfc-editor.org/rfc/rfc9112#section-3.2). libmicrohttpd checks this only when
///   strict (`MHD_OPTION_STRICT_FOR_CLIENT` 1), and then answers in HTML, so it is left at 0.
/// - 400 `ambiguousLength`: both `Transfer-Encoding` and
///   `Content-Length` (RFC 9112 §6.1: the server "MUST close the connection after responding",
///   https://www.rfc-editor.org/rfc/rfc9112#section-6.1); libmicrohttpd would go by
///   `Transfer-Encoding` and keep the connection.
/// - 501 `unsupportedTransferEncoding`: a transfer coding other than `chunked` (RFC 9112 §6.1,
///   "SHOULD respond with 501"); libmicrohttpd would read such a body until the client closes.
/// - 417 `expectationFailed`: an `Expect` other than `100-continue` (RFC 9110 §10.1.1,
///   https://www.rfc-editor.org/rfc/rfc9110#section-10.1.1); libmicrohttpd ignores it.
///
/// What libmicrohttpd 0.9.75 (Debian 12) still answers itself, before or outside the access
/// handler, with a body compiled into the library (`transmit_error_response_len` in
/// `src/microhttpd/connection.c` sends the `REQUEST_MALFORMED`, `REQUEST_TOO_BIG`, … macros with
/// no `Content-Type`; no option or callback replaces them, see
/// https://git.gnunet.org/libmicrohttpd.git/tree/src/microhttpd/connection.c?h=v0.9.75 or
/// `apt-get source libmicrohttpd`): a request line or headers over its memory per connection
/// (`connectionMemoryBytes`, four times `maxHeaderBytes`; 414/431 in HTML), a malformed request
/// line or header line (400), an HTTP version other than 1.x (505), a `Content-Length` that is
/// not a number (400) or over 2^64 (413; both sent with the status line and headers twice, as
/// measured), and a malformed or oversized chunk (400/413). Those rejected after the request
/// line are logged with `"answeredBy":"libmicrohttpd"`. A request line without any
/// space is not answered at all (the connection is closed), nor is a connection over
/// `connectionLimit` (it waits in the listen queue until one closes).
extension HTTPServer {
    /// The error for a request the protocol rules out, or nil when it may go on.
    func protocolError(of state: RequestState, version: String, on connection: OpaquePointer) -> HTTPError? {
        if let refusal = responder.targetRefusal(bytes: state.targetBytes, holdsNUL: state.targetHasNUL) { return refusal }
        let limits = configuration
        let headerBytes = cmhd_request_header_size(connection)
        if headerBytes > limits.maxHeaderBytes {
            return refusal(
                431, "headersTooLarge",
                "the request line and header fields are \(headerBytes) bytes; at most \(limits.maxHeaderBytes) are accepted"
            )
        }
        if version != "HTTP/1.0", header("Host", on: connection) == nil {
            return refusal(400, "missingHost", "an HTTP/1.1 request needs a Host header (RFC 9112 §3.2)")
        }
        if let coding = header("Transfer-Encoding", on: connection) {
            if header("Content-Length", on: connection) != nil {
                return refusal(400, "ambiguousLength", "send Transfer-Encoding or Content-Length, not both (RFC 9112 §6.1)")
            }
            if coding.trimmingCharacters(in: .whitespaces).lowercased() != "chunked" {
                return refusal(
                    501, "unsupportedTransferEncoding",
                    "Transfer-Encoding '\(coding.prefix(64))' is not supported; send chunked or a Content-Length"
                )
            }
        }
        if let expectation = header("Expect", on: connection),
            expectation.trimmingCharacters(in: .whitespaces).lowercased() != "100-continue"
        {
            return refusal(417, "expectationFailed", "Expect '\(expectation.prefix(64))' is not supported; only 100-continue is")
        }
        return nil
    }

    private func refusal(_ status: Int, _ code: String, _ message: String) -> HTTPError {
        Responder.refusal(status, code, message)
    }

    private func header(_ name: String, on connection: OpaquePointer) -> String? {
        MHD_lookup_connection_value(connection, .HEADER_KIND, name).map { String(cString: $0) }
    }
}
