internal import CCurl
import Dispatch
import Foundation
import Synchronization

/// Sends web pushes (RFC 8030 §5: a `POST` of the encrypted body to the subscription's endpoint)
/// with libcurl, on a thread of its own: one `curl_multi` handle drives every transfer, so
/// requests to one push service share its connection (HTTP/2, multiplexed, where the service
/// speaks it over TLS; HTTP/1.1 otherwise), kept alive between pushes. At most
/// ``maximumConnectionsPerOrigin`` connection per origin.
///
/// Completions run on the client's thread: they only hand the answer over.
public final class WebPushClient: Sendable {
    /// One connection per push service origin (README, "Web Push").
    public static let maximumConnectionsPerOrigin = 1

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
        try multi.set(CURLMOPT_MAX_HOST_CONNECTIONS, Self.maximumConnectionsPerOrigin)
        // Idle connections kept for reuse: by default four per transfer in flight, too few to keep
        // one per push service alive between pushes.
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
            curl_multi_wakeup(multi.handle)  // not cleaned up: that happens only after `stopping`
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
        while !state.withLock({ $0.stopping }) {
            for transfer in state.withLock({ state in
                defer { state.queue.removeAll() }; return state.queue
            }) {
                do {
                    let easy = try transfer.start(timeout: timeout, caFile: caFile, allowInsecure: allowInsecure)
                    let added = curl_multi_add_handle(multi.handle, easy)
                    guard added == CURLM_OK else {
                        transfer.finish(failure: "libcurl refused the transfer: \(String(cString: curl_multi_strerror(added)))")
                        continue
                    }
                    active[easy] = transfer
                } catch {
                    transfer.finish(failure: "\(error)")
                }
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
            }
            _ = curl_multi_poll(multi.handle, nil, 0, 1000, nil)
        }
        for (easy, transfer) in active {
            curl_multi_remove_handle(multi.handle, easy)
            transfer.finish(failure: "the web push client was shut down before the push service answered")
        }
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

/// The `curl_multi` handle (a pointer libcurl lets any thread wake).
private struct Multi: @unchecked Sendable {
    let handle: UnsafeMutableRawPointer

    func set(_ option: CURLMoption, _ value: Int) throws {
        let code = ccurl_multi_setopt_long(handle, option, value)
        guard code == CURLM_OK else { throw WebPushError("libcurl refused a setting: \(String(cString: curl_multi_strerror(code)))") }
    }
}
