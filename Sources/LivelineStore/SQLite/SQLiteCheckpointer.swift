import Foundation

/// Copies the WAL back into the database file in a thread of its own (`docs/performance.md`,
/// "Growth"), so that a commit never waits for it.
///
/// SQLite checkpoints on the committing connection by default, once the WAL holds 1,000 pages:
/// that commit then writes those pages into the file and waits for `fdatasync`. With a million
/// contexts updated at random nearly every page is another one, and the writer — the one every
/// write waits for — spent its time waiting for the disk. Here a connection of its own runs a
/// `PASSIVE` checkpoint (it never blocks the writer or readers) shortly after commits, at most
/// every ``interval``; the writer's own auto-checkpoint stays as a backstop at
/// ``writerBackstopPages``. Durability is unchanged: a commit is in the WAL as before, and a WAL
/// not yet checkpointed is read and recovered as before (SQLite, "Write-Ahead Logging",
/// "sqlite3_wal_checkpoint_v2").
final class SQLiteCheckpointer: @unchecked Sendable {
    /// Least time between two checkpoints.
    static let interval: TimeInterval = 0.1
    /// The writer's `wal_autocheckpoint`: it checkpoints itself only when this thread fell far behind.
    static let writerBackstopPages = 10_000

    private let path: String
    private let condition = NSCondition()
    // Guarded by `condition`:
    private var pending = false
    private var stopping = false
    private var running = false

    init(path: String) {
        self.path = path
    }

    /// A commit changed the WAL: a checkpoint follows soon (the thread starts on the first).
    func committed() {
        condition.lock()
        defer { condition.unlock() }
        guard !stopping else { return }
        pending = true
        if !running {
            running = true
            let thread = Thread { [self] in run() }
            thread.name = "liveline-checkpoint"
            thread.start()
        }
        condition.broadcast()
    }

    /// Ends the thread and waits for it (at most a second; true when it ended). Commits after
    /// this start no checkpoint; the writer's own auto-checkpoint and the last connection's close
    /// take over.
    @discardableResult
    func stop() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        stopping = true
        condition.broadcast()
        let deadline = Date().addingTimeInterval(1)
        while running {
            guard condition.wait(until: deadline) else { return false }
        }
        return true
    }

    private func run() {
        var connection: SQLiteConnection?
        defer {
            condition.lock()
            running = false
            condition.broadcast()
            condition.unlock()
        }
        while true {
            condition.lock()
            while !pending && !stopping { condition.wait() }
            if stopping {
                condition.unlock()
                return
            }
            pending = false
            condition.unlock()
            do {
                let opened = try connection ?? SQLiteConnection(path: path, readOnly: false, create: false)
                connection = opened
                try opened.checkpointPassive()
            } catch let error as StoreError where error.code == .busy {
                // Another checkpoint runs (the writer's backstop, another process): the next commit asks again.
            } catch {
                // The file went away or cannot be written: opened again on the next commit; the
                // writer's backstop remains.
                connection = nil
            }
            // At most one checkpoint per interval; a stop ends the wait at once.
            condition.lock()
            let until = Date().addingTimeInterval(Self.interval)
            while !stopping, condition.wait(until: until) {}
            condition.unlock()
        }
    }
}
