import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#endif

/// How instances sharing one PostgreSQL database learn that another one wrote (README, "Several
/// instances"): after its commits that changed rows, an instance sends one empty
/// `NOTIFY liveline_changes` — at most one per ``spacing`` (NOTIFY serialises commits, so never
/// one per commit), from a connection of its own, outside every transaction. A second connection
/// of its own, which never holds a transaction, `LISTEN`s; each notification of another instance
/// bumps ``remoteChanges`` and runs the handlers (the dispatcher wakes, caches read again). After
/// the listening connection was lost it connects again, `LISTEN`s again and counts one change
/// (what was missed meanwhile is caught up by reading). Related PostgreSQL documentation:
/// "NOTIFY", "LISTEN", "libpq — Asynchronous Notification".
final class PostgresChangeFeed: Sendable {
    static let channel = "liveline_changes"
    /// The least time between two notifications of this instance.
    static let spacing: TimeInterval = 0.1

    private let settings: PostgresSettings
    /// Notifications of other instances (and reconnects), counted.
    let remoteChanges = ChangeCounter()
    private let handlers = Mutex<[@Sendable () -> Void]>([])
    private let dirty = Atomic<Bool>(false)
    private let wake = DispatchSemaphore(value: 0)
    private let stopped = Atomic<Bool>(false)
    private let started = Atomic<Bool>(false)
    /// The backend process of this instance's notifying connection: its own notifications are
    /// not another instance's.
    private let ownBackend = Atomic<Int32>(0)
    private let threadsDone = DispatchGroup()

    init(settings: PostgresSettings) {
        self.settings = settings
    }

    /// Starts the two threads (once).
    func start() {
        guard started.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged else { return }
        threadsDone.enter()
        threadsDone.enter()
        Thread.detachNewThread { [self] in
            notifyLoop()
            threadsDone.leave()
        }
        Thread.detachNewThread { [self] in
            listenLoop()
            threadsDone.leave()
        }
    }

    /// Stops both threads and waits (at most a second or so) for them.
    func stop() {
        stopped.store(true, ordering: .releasing)
        wake.signal()
        if started.load(ordering: .acquiring) { _ = threadsDone.wait(timeout: .now() + 3) }
    }

    /// This instance committed a change: the others are told within ``spacing``.
    func localCommit() {
        guard started.load(ordering: .relaxed) else { return }
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
                try notifier.executeScript("NOTIFY \(Self.channel)")
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
        while !isStopped {
            do {
                guard let listener = connection else {
                    let listener = try PostgresConnection(settings)
                    try listener.listen(Self.channel)
                    connection = listener
                    backoff = 0.1
                    // Anything may have happened while nobody listened: caches read again, and
                    // after a lost connection the dispatchers look again too (on the first
                    // connection they are starting anyway).
                    if everConnected { changed() } else { remoteChanges.bump() }
                    everConnected = true
                    continue
                }
                var descriptor = pollfd(fd: listener.socket, events: Int16(POLLIN), revents: 0)
                let ready = poll(&descriptor, 1, 500)
                guard ready > 0 else { continue }
                if try listener.drainNotifications(notFrom: ownBackend.load(ordering: .acquiring)) > 0 { changed() }
            } catch {
                connection = nil
                Thread.sleep(forTimeInterval: backoff)
                backoff = min(backoff * 2, 5)
            }
        }
    }

    private func changed() {
        remoteChanges.bump()
        for handler in handlers.withLock({ $0 }) { handler() }
    }
}
