import Foundation
import LivelineHTTP
import Synchronization

/// Keeps open pages current (Server-Sent Events): every `interval` one thread renders the main
/// part of each open page again and sends it, as an event `page`, when it differs from what the
/// page last got. Rendering reads the database, so a change made through any instance shows; a
/// page whose session ended, or that went away, is dropped.
final class LiveUpdates: Sendable {
    /// What renders one page's main part; nil ends the stream (the session is over).
    typealias Render = @Sendable () -> String?

    private struct Watched {
        let stream: EventStream
        let render: Render
        var last: String?
    }

    private struct State {
        var watched: [UInt64: Watched] = [:]
        var nextID: UInt64 = 0
        var running = false
        var stopped = false
    }

    let interval: TimeInterval
    private let state = Mutex(State())
    /// Wakes the thread early (stop).
    private let wake = DispatchSemaphore(value: 0)

    init(interval: TimeInterval) {
        self.interval = max(0.05, interval)
    }

    /// Streams pages rendered by `render` on `stream` from now on, from the first that differs
    /// from `shown` (what the page has).
    func watch(_ stream: EventStream, shown: String?, render: @escaping Render) {
        let start = state.withLock { state -> Bool in
            guard !state.stopped else { return false }
            state.nextID += 1
            let id = state.nextID
            state.watched[id] = Watched(stream: stream, render: render, last: shown)
            stream.onTermination { [weak self] in self?.state.withLock { _ = $0.watched.removeValue(forKey: id) } }
            if state.running { return false }
            state.running = true
            return true
        }
        if state.withLock({ $0.stopped }) {
            stream.close()
            return
        }
        if start {
            let thread = Thread { [self] in run() }
            thread.name = "liveline-dashboard-live"
            thread.start()
        }
    }

    /// How many pages are watched.
    var count: Int { state.withLock { $0.watched.count } }

    /// Closes every stream and ends the thread.
    func stop() {
        let streams = state.withLock { state -> [EventStream] in
            state.stopped = true
            let streams = state.watched.values.map(\.stream)
            state.watched = [:]
            return streams
        }
        for stream in streams { stream.close() }
        wake.signal()
    }

    private func run() {
        while true {
            let watched = state.withLock { state -> [(UInt64, Watched)]? in state.stopped ? nil : Array(state.watched) }
            guard let watched else { return }
            for (id, entry) in watched {
                guard entry.stream.isOpen else {
                    state.withLock { _ = $0.watched.removeValue(forKey: id) }
                    continue
                }
                guard let page = entry.render() else {
                    entry.stream.close()
                    state.withLock { _ = $0.watched.removeValue(forKey: id) }
                    continue
                }
                if page != entry.last {
                    entry.stream.send(event: "page", data: page)
                    state.withLock { $0.watched[id]?.last = page }
                }
            }
            _ = wake.wait(timeout: .now() + interval)
        }
    }
}
