import Dispatch
import Foundation

/// What the server keeps about one request between libmicrohttpd's calls: when it started, the
/// body read so far, and what was answered (for the access log).
///
/// It is made when the request line has been read (`requestLineHandler`), before the headers,
/// so that a request libmicrohttpd answers itself after that point (a malformed
/// `Content-Length`, headers over its memory) is still logged.
final class RequestState {
    let started = DispatchTime.now().uptimeNanoseconds
    /// Empty until the headers reach the access handler (libmicrohttpd does not hand the method
    /// to `requestLineHandler`).
    var method = ""
    /// The path without the query: first as sent, then as libmicrohttpd decoded it.
    var path: String
    /// Bytes of the request target as sent (path and query).
    let targetBytes: Int
    /// The target as sent holds `%00`: libmicrohttpd decodes it to a NUL and hands its values on
    /// as C strings, cut there, so the server would see less than was sent.
    let targetHasNUL: Bool
    /// The access handler has seen the headers (its first call is over).
    var headersSeen = false
    var body: [UInt8] = []
    /// More body than allowed arrived; the rest is discarded and the answer is 413.
    var tooLarge = false
    /// Its headers came after shutdown began: it is answered 503 (one that began before is served).
    var arrivedWhileDraining = false
    /// Body bytes read and thrown away after the limit.
    var discarded = 0
    var status = 0
    var bytes = 0
    /// Counted in the server's in-flight requests (it arrived before any shutdown began).
    var inFlight = false

    init(target: UnsafePointer<CChar>) {
        let raw = UnsafeBufferPointer(start: UnsafeRawPointer(target).assumingMemoryBound(to: UInt8.self), count: strlen(target))
        targetBytes = raw.count
        targetHasNUL = RequestTarget.holdsNUL(raw)
        path = String(decoding: raw.prefix { $0 != UInt8(ascii: "?") }, as: UTF8.self)
    }
}
