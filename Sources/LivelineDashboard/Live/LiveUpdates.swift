import Foundation
import LivelineHTTP
import Synchronization

/// Keeps open pages current (Server-Sent Events): one thread renders the main part of each open
/// page again every `every` seconds (the page's own pace: an activity each second, the token list
/// every ten) and sends it, as an event `page`, when it differs from what the page last got in
/// anything but its relative times ("4 s ago"), which alone would change it every second.
/// Rendering reads the database, so a change made through any instance shows; a page whose
/// session ended, or that went away, is dropped.
final class LiveUpdates: Sendable {
    /// What renders one page's main part; nil ends the stream (the session is over).
    typealias Render = @Sendable () -> String?

    private struct Watched {
        let stream: EventStream
        let render: Render
        let every: TimeInterval
        var due: Date
        /// What the page has, without its relative times.
        var last: String?
    }

    private struct State {
        var watched: [UInt64: Watched] = [:]
        var nextID: UInt64 = 0
        var running = false
        var stopped = false
    }

    /// How often the thread looks for pages that are due.
    let tick: TimeInterval
    private let state = Mutex(State())
    /// Wakes the thread early (stop).
    private let wake = DispatchSemaphore(value: 0)
    /// Signalled when the thread has ended.
    private let ended = DispatchSemaphore(value: 0)

    init(tick: TimeInterval) {
        self.tick = max(0.05, tick)
    }

    /// Streams pages rendered by `render` on `stream` from now on, every `every` seconds (at the
    /// least the tick), starting with the page as it is now.
    func watch(_ stream: EventStream, every: TimeInterval, render: @escaping Render) {
        let registered = state.withLock { state -> (id: UInt64, startThread: Bool)? in
            guard !state.stopped else { return nil }
            state.nextID += 1
            state.watched[state.nextID] = Watched(stream: stream, render: render, every: max(tick, every), due: Date(), last: nil)
            defer { state.running = true }
            return (state.nextID, !state.running)
        }
        guard let (id, startThread) = registered else {
            stream.close()
            return
        }
        // Outside the lock: a stream that already ended runs this at once.
        stream.onTermination { [weak self] in self?.state.withLock { _ = $0.watched.removeValue(forKey: id) } }
        if startThread {
            let thread = Thread { [self] in
                run()
                ended.signal()
            }
            thread.name = "liveline-dashboard-live"
            thread.start()
        }
    }

    /// How many pages are watched.
    var count: Int { state.withLock { $0.watched.count } }

    /// Closes every stream and ends the thread (waits up to `timeout` for a render in progress).
    func stop(timeout: TimeInterval = 10) {
        let (streams, running) = state.withLock { state -> ([EventStream], Bool) in
            let streams = state.watched.values.map(\.stream)
            state.watched = [:]
            let running = state.running && !state.stopped
            state.stopped = true
            return (streams, running)
        }
        for stream in streams { stream.close() }
        wake.signal()
        if running { _ = ended.wait(timeout: .now() + timeout) }
    }

    /// The page without its relative times: what decides whether it changed.
    static func comparable(_ page: String) -> String {
        page.replacing(/<span class="ago">[^<]*<\/span>/, with: "")
    }

    private func run() {
        while true {
            let now = Date()
            let due = state.withLock { state -> [(UInt64, Watched)]? in
                state.stopped ? nil : state.watched.filter { $0.value.due <= now }.map { ($0.key, $0.value) }
            }
            guard let due else { return }
            for (id, entry) in due {
                guard entry.stream.isOpen, let page = entry.render() else {
                    entry.stream.close()
                    state.withLock { _ = $0.watched.removeValue(forKey: id) }
                    continue
                }
                let comparable = Self.comparable(page)
                let changed = comparable != entry.last
                if changed { entry.stream.send(event: "page", data: page) }
                state.withLock { state in
                    state.watched[id]?.due = now.addingTimeInterval(entry.every)
                    if changed { state.watched[id]?.last = comparable }
                }
            }
            _ = wake.wait(timeout: .now() + tick)
        }
    }
}
