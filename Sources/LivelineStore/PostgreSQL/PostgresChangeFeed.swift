import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// How instances sharing one PostgreSQL database learn that another one wrote (docs/operations.md, "Several
/// instances"): after its commits that changed rows, an instance sends one empty `NOTIFY` on the
/// channel of its schema (`liveline_<schema>`: instances of another deployment in another schema
/// of the same database are not woken) — at most one per ``spacing`` (NOTIFY serialises commits, so never
/// one per commit), from a connection of its own, outside every transaction. A second connection
/// of its own, which never holds a transaction, `LISTEN`s; each notification of another instance
/// bumps ``remoteChanges`` and runs the handlers (the dispatcher wakes, caches read again). After
/// the listening connection was lost it connects again, `LISTEN`s again and counts one change
/// (what was missed meanwhile is caught up by reading). Related PostgreSQL documentation:
/// "NOTIFY", "LISTEN", "libpq — Asynchronous Notification".
final class PostgresChangeFeed: Sendable {
    /// The least time between two notifications of this instance.
    static let spacing: TimeInterval = 0.1
    /// The longest a cache of this instance trusts that nothing changed elsewhere.
    static let maximumQuiet: TimeInterval = 5

    private let settings: PostgresSettings
    /// Notifications of other instances (and reconnects), counted.
    let remoteChanges = ChangeCounter()
    private let handlers = Mutex<[@Sendable () -> Void]>([])
    private let dirty = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)
    private let stopped = Atomic<Bool>(false)
    /// Whether the threads were started, and whether the feed was stopped (then never started).
    private let lifecycle = Mutex<(started: Bool, stopped: Bool)>((false, false))
    /// Entered by each running thread.
    private let running = DispatchGroup()
    /// The backend process of this instance's notifying connection: its own notifications are
    /// not another instance's.
    private let ownBackend = Atomic<Int32>(0)
    /// `liveline_<schema>`, read on the first connection.
    private let channelName = Mutex<String?>(nil)

    init(settings: PostgresSettings) {
        self.settings = settings
    }

    /// Starts the two threads (once; never after ``stop()``).
    func start() {
        // Under the lock `stop` takes too: a stop either sees both threads entered or none start.
        let starting = lifecycle.withLock { state -> Bool in
            guard !state.started, !state.stopped else { return false }
            state.started = true
            running.enter()
            running.enter()
            return true
        }
        guard starting else { return }
        Thread.detachNewThread { [self] in
            notifyLoop()
            running.leave()
        }
        Thread.detachNewThread { [self] in
            listenLoop()
            running.leave()
        }
    }

    /// Stops both threads: they end on their own within half a second (the listener's poll;
    /// a reconnect's backoff may take longer), closing their connections. True when they ended
    /// within `timeout`.
    @discardableResult
    func stop(timeout: TimeInterval = 0) -> Bool {
        // A commit not told yet is told now: a short-lived process (`liveline users revoke`)
        // closes right after its commit, before the notifying thread's next round.
        if dirty.exchange(false, ordering: .acquiringAndReleasing), let notifier = try? PostgresConnection(settings) {
            try? notifier.executeScript("NOTIFY \(try channel(on: notifier))")
        }
        lifecycle.withLock { $0.stopped = true }
        stopped.store(true, ordering: .releasing)
        wake.signal()
        return running.wait(timeout: .now() + timeout) == .success
    }

    /// This instance committed a change: the others are told within ``spacing``.
    func localCommit() {
        start()
        if !dirty.exchange(true, ordering: .acquiringAndReleasing) { wake.signal() }
    }

    /// Runs `handler` after each change another instance made (on the listening thread).
    func onRemoteChange(_ handler: @escaping @Sendable () -> Void) {
        handlers.withLock { $0.append(handler) }
    }

    private var isStopped: Bool { stopped.load(ordering: .acquiring) }

    private func notifyLoop() {
        var connection: PostgresConnection?
        while !isStopped {
            _ = wake.wait(timeout: .now() + 1)
            guard !isStopped, dirty.exchange(false, ordering: .acquiringAndReleasing) else { continue }
            do {
                let notifier = try connection ?? PostgresConnection(settings)
                connection = notifier
                ownBackend.store(notifier.backendProcess, ordering: .releasing)
                try notifier.executeScript("NOTIFY \(try channel(on: notifier))")
            } catch {
                connection = nil
                dirty.store(true, ordering: .releasing)  // told on the next round
            }
            Thread.sleep(forTimeInterval: Self.spacing)
        }
    }

    private func listenLoop() {
        var connection: PostgresConnection?
        var backoff: TimeInterval = 0.1
        var everConnected = false
        var nextRefresh = Date().addingTimeInterval(Self.maximumQuiet)
        while !isStopped {
            do {
                guard let listener = connection else {
                    let listener = try PostgresConnection(settings)
                    try listener.listen(try channel(on: listener))
                    connection = listener
                    backoff = 0.1
                    // Anything may have happened while nobody listened: caches read again, and
                    // after a lost connection the dispatchers look again too (on the first
                    // connection they are starting anyway).
                    if everConnected { changed() } else { remoteChanges.bump() }
                    everConnected = true
                    continue
                }
                // Caches never trust a quiet feed for long: a notification lost with a crash
                // between another instance's commit and its NOTIFY is caught up within seconds.
                if Date() >= nextRefresh {
                    remoteChanges.bump()
                    nextRefresh = Date().addingTimeInterval(Self.maximumQuiet)
                }
                var descriptor = pollfd(fd: listener.socket, events: Int16(POLLIN), revents: 0)
                let ready = poll(&descriptor, 1, 500)
                guard ready > 0 else { continue }
                if try listener.drainNotifications(notFrom: ownBackend.load(ordering: .acquiring)) > 0 { changed() }
            } catch {
                connection = nil
                // In short steps, so a stop is not held up by the backoff.
                let until = Date().addingTimeInterval(backoff)
                while !isStopped && Date() < until { Thread.sleep(forTimeInterval: 0.05) }
                backoff = min(backoff * 2, 5)
            }
        }
    }

    /// The channel of the connection's schema: its name in lower-case letters, digits and `_`.
    private func channel(on connection: PostgresConnection) throws -> String {
        if let name = channelName.withLock({ $0 }) { return name }
        let schema = try connection.run("SELECT current_schema() AS schema", [], collect: true).rows.first?.optionalString("schema") ?? "public"
        let safe = String(schema.lowercased().unicodeScalars.map { ("a"..."z").contains($0) || ("0"..."9").contains($0) ? Character($0) : "_" })
        let name = String("liveline_\(safe)".prefix(63))
        channelName.withLock { $0 = name }
        return name
    }

    private func changed() {
        remoteChanges.bump()
        for handler in handlers.withLock({ $0 }) { handler() }
    }
}
