internal import CCurl
import Dispatch
import Foundation
import LivelinePushWire
import Synchronization

/// Sends web pushes (RFC 8030 §5: a `POST` of the encrypted body to the subscription's endpoint)
/// with libcurl, on a thread of its own: one `curl_multi` handle drives every transfer, so
/// requests to one push service share its connections (HTTP/2, multiplexed, where the service
/// speaks it over TLS; HTTP/1.1 otherwise), kept alive between pushes. At most
/// ``maximumConnectionsPerOrigin`` pushes in flight per origin, ``maximumStreamsPerOrigin`` once
/// it answered over HTTP/2.
///
/// Completions run on the client's thread: they only hand the answer over.
public final class WebPushClient: Sendable {
    /// Pushes in flight per push service origin until it answered over HTTP/2, so at most as
    /// many HTTP/1.1 connections (docs/operations.md, "Web Push"): more than one, or an HTTP/1.1 service gets
    /// one request at a time. The client keeps the rest waiting itself: with libcurl 7.88's own
    /// limit (`CURLMOPT_MAX_HOST_CONNECTIONS`) queued transfers sometimes stayed unstarted until the
    /// next poll timed out, a second later (`scripts/bench-webpush.sh` showed it; without that
    /// limit it did not happen).
    public static let maximumConnectionsPerOrigin = 8
    /// Pushes in flight per origin once it answered over HTTP/2: streams multiplexed on its
    /// connections (libcurl opens another one where the service's stream limit is lower).
    public static let maximumStreamsPerOrigin = 100
    /// Easy handles kept for reuse between pushes.
    static let idleHandleLimit = 256

    private let timeout: TimeInterval
    private let caFile: String?
    private let allowInsecure: Bool
    private let state = Mutex<State>(State())
    /// Set when the thread ended.
    private let finished = DispatchSemaphore(value: 0)
    /// The multi handle, owned by the thread; here only to wake it (`curl_multi_wakeup` may be
    /// called from any thread).
    private let multi: Multi

    private struct State {
        var stopping = false
        var started = false
        /// The multi handle is freed: nothing may wake it any more.
        var cleanedUp = false
        /// Pushes handed over, not yet taken by the thread. Under the same lock as `stopping`, so
        /// a push is either taken by the thread or answered as failed at its end, never lost.
        var queue: [Transfer] = []
    }

    /// Wakes the thread, unless it already freed the handle (under the lock it frees it with).
    private func wake() {
        state.withLock { state in
            if !state.cleanedUp { curl_multi_wakeup(multi.handle) }
        }
    }

    /// `timeout`: the longest one push may take, connecting included (keep it below the time its
    /// sender waits for the answer, or a late answer is lost and the push sent again). `caFile`:
    /// trust anchors other than the system's (tests). `allowInsecure`: `http://` endpoints too
    /// (`LIVELINE_WEBPUSH_ALLOW_INSECURE`); else only `https://`.
    public init(timeout: TimeInterval = 20, caFile: String? = nil, allowInsecure: Bool = false) throws {
        Self.initializeLibrary
        guard let handle = curl_multi_init() else { throw WebPushError("libcurl could not make a transfer handle (curl_multi_init)") }
        multi = Multi(handle: handle)
        self.timeout = timeout
        self.caFile = caFile
        self.allowInsecure = allowInsecure
        try multi.set(CURLMOPT_PIPELINING, Int(CURLPIPE_MULTIPLEX))
        // Idle connections kept for reuse: by default four per transfer in flight, too few to keep
        // a push service's connections alive between pushes.
        try multi.set(CURLMOPT_MAXCONNECTS, 64)
    }

    /// `curl_global_init`, once per process (thread-safe since libcurl 7.84).
    private static let initializeLibrary: Void = {
        _ = curl_global_init(Int(CURL_GLOBAL_DEFAULT))
    }()

    /// Queues `request`; `completion` gets the push service's answer (status 0 when there was none:
    /// a connection or timeout failure, named in ``WebPushResponse/transportError``).
    public func send(_ request: WebPushRequest, completion: @escaping @Sendable (WebPushResponse) -> Void) {
        let transfer = Transfer(request: request, completion: completion)
        let accepted = state.withLock { state -> Bool in
            guard !state.stopping else { return false }
            if !state.started {
                state.started = true
                let thread = Thread { [self] in run() }
                thread.name = "liveline-webpush"
                thread.start()
            }
            state.queue.append(transfer)
            // One wake-up per batch of pushes: while the queue holds others, the thread was woken
            // for them and has not taken the queue yet (it takes all of it at once).
            if state.queue.count == 1 { curl_multi_wakeup(multi.handle) }  // not cleaned up: that happens only after `stopping`
            return true
        }
        guard accepted else {
            completion(WebPushResponse(status: 0, transportError: "the web push client was shut down"))
            return
        }
    }

    /// Ends the thread: pushes in flight and queued ones are answered as failed (status 0). Waits
    /// up to `timeout` for it; true when it ended.
    @discardableResult
    public func shutdown(timeout: Duration = .seconds(5)) -> Bool {
        let started = state.withLock { state -> Bool in
            state.stopping = true
            return state.started
        }
        guard started else { return true }
        wake()
        let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
        guard finished.wait(timeout: .now() + seconds) == .success else { return false }
        finished.signal()
        return true
    }

    deinit {
        if state.withLock({ !$0.started }) { curl_multi_cleanup(multi.handle) }
    }

    // MARK: The thread

    private func run() {
        var active: [UnsafeMutableRawPointer: Transfer] = [:]
        var lanes = OriginLanes(limit: Self.maximumConnectionsPerOrigin, multiplexedLimit: Self.maximumStreamsPerOrigin)
        // Easy handles of finished pushes, reset, for the next ones (at most as many as were in
        // flight at once, up to `idleHandleLimit`).
        var idle: [UnsafeMutableRawPointer] = []
        func begin(_ first: Transfer) {
            var next = [first]
            while let transfer = next.popLast() {
                do {
                    let easy = try transfer.start(timeout: timeout, caFile: caFile, allowInsecure: allowInsecure, reusing: idle.popLast())
                    let added = curl_multi_add_handle(multi.handle, easy)
                    guard added == CURLM_OK else {
                        throw WebPushError("libcurl refused the transfer: \(String(cString: curl_multi_strerror(added)))")
                    }
                    active[easy] = transfer
                } catch {
                    transfer.finish(failure: "\(error)")
                    if idle.count < Self.idleHandleLimit, let handle = transfer.giveBackHandle() { idle.append(handle) }
                    next += lanes.finished(transfer)  // its place goes to the next of its origin
                }
            }
        }
        while !state.withLock({ $0.stopping }) {
            for transfer in state.withLock({ state in
                defer { state.queue.removeAll() }; return state.queue
            }) where lanes.admit(transfer) {
                begin(transfer)
            }
            var running: Int32 = 0
            _ = curl_multi_perform(multi.handle, &running)
            var left: Int32 = 0
            while let message = curl_multi_info_read(multi.handle, &left) {
                guard message.pointee.msg == CURLMSG_DONE, let easy = message.pointee.easy_handle,
                    let transfer = active.removeValue(forKey: easy)
                else { continue }
                let result = ccurl_message_result(message)
                curl_multi_remove_handle(multi.handle, easy)
                transfer.finish(result: result)
                if idle.count < Self.idleHandleLimit, let handle = transfer.giveBackHandle() { idle.append(handle) }
                for next in lanes.finished(transfer) { begin(next) }
            }
            // Waits for a socket, a wake-up, or libcurl's next timer; not at all when a timer is
            // due now (`curl_multi_timeout` 0).
            var due = -1
            _ = curl_multi_timeout(multi.handle, &due)
            if due != 0 { _ = curl_multi_poll(multi.handle, nil, 0, Int32(due < 0 ? 1000 : min(due, 1000)), nil) }
        }
        for (easy, transfer) in active {
            curl_multi_remove_handle(multi.handle, easy)
            transfer.finish(failure: "the web push client was shut down before the push service answered")
        }
        for transfer in lanes.removeAllWaiting() { transfer.finish(failure: "the web push client was shut down") }
        for handle in idle { curl_easy_cleanup(handle) }
        let left = state.withLock { state in
            state.cleanedUp = true
            curl_multi_cleanup(multi.handle)
            defer { state.queue.removeAll() }
            return state.queue
        }
        for transfer in left { transfer.finish(failure: "the web push client was shut down") }
        finished.signal()
    }
}

/// Pushes in flight and waiting, per push service origin: at most `limit` in flight
/// (`multiplexedLimit` once the origin answered over HTTP/2), the rest started in the order they
/// came as places free up. Used on the client's thread only.
struct OriginLanes {
    let limit: Int
    let multiplexedLimit: Int
    private var inFlight: [String: Int] = [:]
    private var waiting: [String: Waiting] = [:]
    /// Origins that answered over HTTP/2.
    private var multiplexing: Set<String> = []

    init(limit: Int, multiplexedLimit: Int) {
        self.limit = limit
        self.multiplexedLimit = multiplexedLimit
    }

    private func limit(of origin: String) -> Int { multiplexing.contains(origin) ? multiplexedLimit : limit }

    /// True when `transfer` may start now (and counts it in flight); else it waits its turn.
    mutating func admit(_ transfer: Transfer) -> Bool {
        guard inFlight[transfer.origin, default: 0] < limit(of: transfer.origin) else {
            waiting[transfer.origin, default: Waiting()].append(transfer)
            return false
        }
        inFlight[transfer.origin, default: 0] += 1
        return true
    }

    /// `transfer` is done: the waiting pushes of its origin that may start now, in flight in its
    /// place (more than one when it was the first answer over HTTP/2).
    mutating func finished(_ transfer: Transfer) -> [Transfer] {
        let origin = transfer.origin
        if transfer.spokeHTTP2 { multiplexing.insert(origin) }
        inFlight[origin, default: 1] -= 1
        var started: [Transfer] = []
        while inFlight[origin, default: 0] < limit(of: origin), let next = waiting[origin]?.removeFirst() {
            started.append(next)
            inFlight[origin, default: 0] += 1
        }
        if waiting[origin]?.isEmpty == true { waiting[origin] = nil }
        if inFlight[origin] == 0 { inFlight[origin] = nil }
        return started
    }

    /// Every waiting push, removed (at shutdown).
    mutating func removeAllWaiting() -> [Transfer] {
        defer { waiting.removeAll() }
        return waiting.values.flatMap(\.remaining)
    }

    /// One origin's waiting pushes, first come first: taking the first is O(1) and modifies the
    /// lane in place (an array's `removeFirst` moved every other waiting push each time — thousands
    /// while a batch waits for one origin).
    struct Waiting {
        /// Taken ones are nil until dropped: a finished push is not kept alive by the queue.
        private var items: [Transfer?] = []
        private var head = 0

        var isEmpty: Bool { head == items.count }
        var remaining: [Transfer] { items[head...].compactMap { $0 } }

        mutating func append(_ transfer: Transfer) { items.append(transfer) }

        mutating func removeFirst() -> Transfer? {
            guard head < items.count else { return nil }
            let first = items[head]
            items[head] = nil
            head += 1
            // The taken ones are dropped once they are the larger half: amortized O(1).
            if head >= 64, head * 2 >= items.count {
                items.removeFirst(head)
                head = 0
            }
            return first
        }
    }
}

/// The `curl_multi` handle (a pointer libcurl lets any thread wake).
private struct Multi: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer

    func set(_ option: CURLMoption, _ value: Int) throws {
        let code = ccurl_multi_setopt_long(handle, option, value)
        guard code == CURLM_OK else { throw WebPushError("libcurl refused a setting: \(String(cString: curl_multi_strerror(code)))") }
    }
}

extension WebPushClient: WebPushSender {}
