import Dispatch

/// What the server keeps about one request between libmicrohttpd's calls: when it started, the
/// body read so far, and what was answered (for the access log).
final class RequestState {
    let started = DispatchTime.now().uptimeNanoseconds
    let method: String
    let path: String
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

    init(method: String, path: String) {
        self.method = method
        self.path = path
    }
}
