import Foundation
import LivelineHTTP
import LivelineScheduling
import Synchronization

/// Keeps open pages current (Server-Sent Events): a timer renders the main part of each open page
/// again every `every` seconds (the page's own pace: an activity each second, the token list
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
        var timer: RepeatingTimer?
        var stopped = false
    }

    /// How often the timer looks for pages that are due.
    let tick: TimeInterval
    private let state = Mutex(State())
    /// Where pages are rendered, one round at a time.
    private let queue = DispatchQueue(label: "liveline-dashboard-live")

    init(tick: TimeInterval) {
        self.tick = max(0.05, tick)
    }

    /// Streams pages rendered by `render` on `stream` from now on, every `every` seconds (at the
    /// least the tick), starting with the page as it is now.
    func watch(_ stream: EventStream, every: TimeInterval, render: @escaping Render) {
        let registered = state.withLock { state -> (id: UInt64, startTimer: Bool)? in
            guard !state.stopped else { return nil }
            state.nextID += 1
            state.watched[state.nextID] = Watched(stream: stream, render: render, every: max(tick, every), due: Date(), last: nil)
            return (state.nextID, state.timer == nil)
        }
        guard let (id, startTimer) = registered else {
            stream.close()
            return
        }
        // Outside the lock: a stream that already ended runs this at once.
        stream.onTermination { [weak self] in self?.state.withLock { _ = $0.watched.removeValue(forKey: id) } }
        if startTimer {
            let timer = RepeatingTimer(every: tick, queue: queue) { [weak self] in self?.renderDue() }
            let kept = state.withLock { state -> Bool in
                guard !state.stopped, state.timer == nil else { return false }
                state.timer = timer
                return true
            }
            if !kept { timer.cancel() }
        }
        queue.async { [weak self] in self?.renderDue() }
    }

    /// How many pages are watched.
    var count: Int { state.withLock { $0.watched.count } }

    /// Closes every stream and stops the timer (waits up to `timeout` for a render in progress).
    func stop(timeout: TimeInterval = 10) {
        let (streams, timer) = state.withLock { state -> ([EventStream], RepeatingTimer?) in
            let streams = state.watched.values.map(\.stream)
            state.watched = [:]
            state.stopped = true
            defer { state.timer = nil }
            return (streams, state.timer)
        }
        timer?.cancel()
        for stream in streams { stream.close() }
        let idle = DispatchSemaphore(value: 0)
        queue.async { idle.signal() }
        _ = idle.wait(timeout: .now() + timeout)
    }

    /// The page without its relative times: what decides whether it changed.
    static func comparable(_ page: String) -> String {
        page.replacing(/<span class="ago">[^<]*<\/span>/, with: "")
    }

    /// Renders every page that is due and sends those that changed.
    private func renderDue() {
        let now = Date()
        let due = state.withLock { state -> [(UInt64, Watched)] in
            state.stopped ? [] : state.watched.filter { $0.value.due <= now }.map { ($0.key, $0.value) }
        }
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
    }
}
