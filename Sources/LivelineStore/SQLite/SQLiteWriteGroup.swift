import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Group commit on the one writer connection (`docs/performance.md`, "Writes").
///
/// A write that arrives while another one holds the connection waits, then joins that write's
/// transaction instead of starting its own: the first write of a group runs `BEGIN IMMEDIATE`
/// and its body; each later one runs its body inside a `SAVEPOINT` of its own (a body that throws
/// rolls back to it, and only its own changes go). The last of the group — the one that finds
/// nobody waiting, the group full, or the group open longer than ``maxOpen`` — commits, and every
/// member is answered only then: with its result once the `COMMIT` holding its changes succeeded.
/// Nothing is answered before it is as durable as a write of its own would be (SQLite,
/// "SAVEPOINT", "Write-Ahead Logging").
///
/// When the group ends without its commit for a reason that is not a member's own (the `COMMIT`
/// failed, or SQLite rolled the whole transaction back: a full disk), every member whose own body
/// succeeded runs it once more in a transaction of its own, so that a small write is not refused
/// for a big one's sake; only what fails then is answered with its error.
///
/// A lone write costs what it did (no savepoint); under load, N writes share one `BEGIN`,
/// one `COMMIT` and one append of their pages to the WAL. Bodies run on their callers' threads,
/// one at a time, as before. A body must not write again through the same database (it would
/// wait for itself): that is a programming error, stopped at once.
final class SQLiteWriteGroup: @unchecked Sendable {
    /// Most writes committed together.
    static let maxMembers = 64
    /// Longest a group takes in new members: a write that finished is not held up for long by
    /// later ones.
    static let maxOpen: Duration = .milliseconds(5)

    private let connection: SQLiteConnection
    /// Guards the fields below. Three conditions on it, so that a hand-off wakes one waiter, not
    /// every thread that waits for anything (under load that was most of the cost of a wait):
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    /// …the connection is free (one waiter is woken: it takes it, or waits again if another
    /// thread came first, and that one hands it on in turn);
    private let connectionFree = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// …the connection is free and no group is open (for writes that must run alone);
    private let groupClosed = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    /// …a group ended (its members wait for its outcome).
    private let groupEnded = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var connectionBusy = false
    /// The thread running a body or a commit now (to stop a write from inside a write).
    private var holder: pthread_t?
    /// Writes waiting for the connection that may join the open group.
    private var waiting = 0
    /// Writes waiting to run alone.
    private var waitingAlone = 0
    private var open: Group?
    private var writes = 0
    private var commits = 0

    /// One transaction and its members.
    private final class Group {
        let opened = ContinuousClock.now
        var members = 0
        var changesBefore: Int64 = 0
        /// Rows changed by members, then rolled back to their savepoints.
        var rolledBack: Int64 = 0
        /// Set once the group ended: committed (whether rows changed), or the error that ended it.
        var outcome: Result<Bool, any Error>?
    }

    /// How a write ended.
    struct Ending<T> {
        var result: Result<T, any Error>
        /// Whether a commit that changed rows holds it.
        var committedChanges: Bool
    }

    init(connection: SQLiteConnection) {
        self.connection = connection
        pthread_mutex_init(mutex, nil)
        for condition in [connectionFree, groupClosed, groupEnded] { pthread_cond_init(condition, nil) }
    }

    deinit {
        for condition in [connectionFree, groupClosed, groupEnded] {
            pthread_cond_destroy(condition)
            condition.deallocate()
        }
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    private func lock() { pthread_mutex_lock(mutex) }
    private func unlock() { pthread_mutex_unlock(mutex) }
    private func wait(_ condition: UnsafeMutablePointer<pthread_cond_t>) { pthread_cond_wait(condition, mutex) }

    /// Writes run and transactions that ended (committed or not) so far: `writes / commits` is
    /// how many writes a commit held on average.
    var counts: (writes: Int, commits: Int) {
        lock()
        defer { unlock() }
        return (writes, commits)
    }

    /// Runs `body` in a group's transaction and returns once that transaction ended. `committed`
    /// runs once per group that committed changes, by the member that committed, before any
    /// member is answered.
    func write<T>(_ body: (any SQLTransaction) throws -> T, committed: () -> Void) -> Ending<T> {
        let ending = writeOnce(body, alone: false, committed: committed)
        guard case .failure(let error) = ending.result, error is GroupFailure else { return ending }
        // The group ended without its commit, not for this write's sake: once more, alone.
        let again = writeOnce(body, alone: true, committed: committed)
        if case .failure(let failure as GroupFailure) = again.result { return Ending(result: .failure(failure.cause), committedChanges: false) }
        return again
    }

    /// The group ended without its commit for a reason that was not this member's own.
    private struct GroupFailure: Error {
        let cause: any Error
    }

    /// One try; `alone`: in a transaction of its own (after the open group ended, and nobody joins).
    private func writeOnce<T>(_ body: (any SQLTransaction) throws -> T, alone: Bool, committed: () -> Void) -> Ending<T> {
        lock()
        if let holder, pthread_equal(holder, pthread_self()) != 0 {
            unlock()
            preconditionFailure("a database write ran inside another write of the same database on the same thread")
        }
        if alone {
            waitingAlone += 1
            while connectionBusy || open != nil { wait(groupClosed) }
            waitingAlone -= 1
        } else {
            waiting += 1
            while connectionBusy { wait(connectionFree) }
            waiting -= 1
        }
        connectionBusy = true
        holder = pthread_self()
        let group: Group
        let first: Bool
        if let current = open {
            group = current
            first = false
        } else {
            group = Group()
            open = group
            first = true
        }
        group.members += 1
        writes += 1
        unlock()

        // The connection is this thread's until it hands it on.
        let result = first ? runFirst(body, group: group) : runJoined(body, group: group)
        let alive = connection.inTransaction

        lock()
        if alive, !alone, waiting > 0, group.members < Self.maxMembers, ContinuousClock.now - group.opened < Self.maxOpen {
            // Someone is waiting: they join this transaction; the last of them commits.
            connectionBusy = false
            holder = nil
            pthread_cond_signal(connectionFree)
            while group.outcome == nil { wait(groupEnded) }
            let outcome = group.outcome!
            unlock()
            return Self.answer(result, outcome)
        }
        open = nil
        unlock()

        let outcome: Result<Bool, any Error>
        if alive {
            do {
                try connection.run("COMMIT", [], collect: false)
                let changed = connection.totalChanges - group.changesBefore - group.rolledBack > 0
                if changed { committed() }
                outcome = .success(changed)
            } catch {
                connection.rollBackIfOpen()
                outcome = .failure(error)
            }
        } else {
            // The transaction is gone: rolled back by SQLite (a full disk), or by this member,
            // the first and only one, whose body threw.
            outcome = .failure(result.failure ?? StoreError(.database, "the write transaction ended before its commit"))
        }
        lock()
        commits += 1
        group.outcome = outcome
        connectionBusy = false
        holder = nil
        if group.members > 1 { pthread_cond_broadcast(groupEnded) }
        if waiting > 0 { pthread_cond_signal(connectionFree) }
        if waitingAlone > 0 { pthread_cond_broadcast(groupClosed) }
        unlock()
        return Self.answer(result, outcome, ownError: !alive)
    }

    /// The first member: `BEGIN IMMEDIATE`, then the body; if it throws, the whole transaction
    /// (holding only its changes) is rolled back.
    private func runFirst<T>(_ body: (any SQLTransaction) throws -> T, group: Group) -> Result<T, any Error> {
        group.changesBefore = connection.totalChanges
        let result: Result<T, any Error>
        do {
            try connection.run("BEGIN IMMEDIATE", [], collect: false)
            result = runBody(body)
        } catch {
            result = .failure(error)
        }
        if result.failure != nil { connection.rollBackIfOpen() }
        return result
    }

    /// A later member: its body inside a savepoint, rolled back to it if the body throws. If the
    /// savepoint cannot be taken, released or rolled back to, the whole transaction is rolled
    /// back (the group then fails, and its members try again alone).
    private func runJoined<T>(_ body: (any SQLTransaction) throws -> T, group: Group) -> Result<T, any Error> {
        do {
            try connection.run("SAVEPOINT liveline_member", [], collect: false)
        } catch {
            connection.rollBackIfOpen()
            return .failure(error)
        }
        let before = connection.totalChanges
        let result = runBody(body)
        guard connection.inTransaction else { return result }  // SQLite rolled everything back
        do {
            if result.failure != nil {
                let changed = connection.totalChanges - before
                try connection.run("ROLLBACK TO liveline_member", [], collect: false)
                group.rolledBack += changed
            }
            try connection.run("RELEASE liveline_member", [], collect: false)
        } catch {
            connection.rollBackIfOpen()
            return .failure(result.failure ?? error)
        }
        return result
    }

    private func runBody<T>(_ body: (any SQLTransaction) throws -> T) -> Result<T, any Error> {
        let transaction = SQLiteTransaction(connection: connection)
        defer { transaction.isOpen = false }
        return Result { try body(transaction) }
    }

    /// A member's answer: its own error, else the group's (to be tried again alone unless it was
    /// this member that ended the group), else its result.
    private static func answer<T>(_ result: Result<T, any Error>, _ outcome: Result<Bool, any Error>, ownError: Bool = false) -> Ending<T> {
        if case .failure = result { return Ending(result: result, committedChanges: false) }
        switch outcome {
        case .failure(let error):
            return Ending(result: .failure(ownError ? error : GroupFailure(cause: error)), committedChanges: false)
        case .success(let changed):
            return Ending(result: result, committedChanges: changed)
        }
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
