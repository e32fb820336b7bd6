import Foundation

/// Group commit on the one writer connection (`docs/performance.md`, "Group commit").
///
/// A write that arrives while another one holds the connection waits, then joins that write's
/// transaction instead of starting its own: the first write of a group runs `BEGIN IMMEDIATE`
/// and its body; each later one runs its body inside a `SAVEPOINT` of its own (a body that throws
/// rolls back to it, and only its own changes go). The last of the group — the one that finds
/// nobody waiting, or the group full — commits, and every member is answered only then: with its
/// result once the `COMMIT` holding its changes succeeded, else with the error that kept them out.
/// Nothing is answered before it is as durable as a write of its own would be (SQLite,
/// "SAVEPOINT", "Write-Ahead Logging").
///
/// A lone write costs what it did (no savepoint); under load, N writes share one `BEGIN`,
/// one `COMMIT` and one append of their pages to the WAL. Bodies run on their callers' threads,
/// one at a time, as before.
final class SQLiteWriteGroup: @unchecked Sendable {
    /// Most writes committed together.
    static let maxMembers = 64

    private let connection: SQLiteConnection
    /// Guards the fields below; members wait on it for the connection and for their commit.
    private let condition = NSCondition()
    private var connectionBusy = false
    private var waiting = 0
    private var open: Group?
    private var writes = 0
    private var commits = 0

    /// Writes run and transactions that ended (committed or not) so far: `writes / commits` is
    /// how many writes a commit held on average.
    var counts: (writes: Int, commits: Int) {
        condition.lock()
        defer { condition.unlock() }
        return (writes, commits)
    }

    /// One transaction and its members.
    private final class Group {
        var members = 0
        var changesBefore: Int64 = 0
        /// Set once the group ended: committed (whether rows changed), or the error that ended it.
        var outcome: Result<Bool, any Error>?
    }

    init(connection: SQLiteConnection) {
        self.connection = connection
    }

    /// Runs `body` in a group's transaction and returns once that transaction ended. `finished`
    /// runs once per group, by the member that ended it, before any member is answered: with
    /// whether the commit changed rows, or the error that ended the group.
    func write<T>(_ body: (any SQLTransaction) throws -> T, finished: (Result<Bool, any Error>) -> Void) -> Result<T, any Error> {
        condition.lock()
        waiting += 1
        while connectionBusy { condition.wait() }
        waiting -= 1
        connectionBusy = true
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
        condition.unlock()

        // The connection is this thread's until it hands it on.
        let result = first ? runFirst(body, group: group) : runJoined(body)
        let alive = connection.inTransaction

        condition.lock()
        if alive, waiting > 0, group.members < Self.maxMembers {
            // Someone is waiting: they join this transaction; the last of them commits.
            connectionBusy = false
            condition.broadcast()
            while group.outcome == nil { condition.wait() }
            let outcome = group.outcome!
            condition.unlock()
            return Self.answer(result, outcome)
        }
        open = nil
        condition.unlock()

        let outcome: Result<Bool, any Error>
        if alive {
            do {
                try connection.run("COMMIT", [], collect: false)
                outcome = .success(connection.totalChanges != group.changesBefore)
            } catch {
                connection.rollBackIfOpen()
                outcome = .failure(error)
            }
        } else {
            // The transaction is gone: rolled back by SQLite (a full disk), or by this member,
            // the first and only one, whose body threw.
            outcome = .failure(result.failure ?? StoreError(.database, "the write transaction ended before its commit"))
        }
        finished(outcome)
        condition.lock()
        commits += 1
        group.outcome = outcome
        connectionBusy = false
        condition.broadcast()
        condition.unlock()
        return Self.answer(result, outcome)
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
    /// savepoint itself fails, the whole transaction is rolled back (the group then fails).
    private func runJoined<T>(_ body: (any SQLTransaction) throws -> T) -> Result<T, any Error> {
        do {
            try connection.run("SAVEPOINT liveline_member", [], collect: false)
        } catch {
            connection.rollBackIfOpen()
            return .failure(error)
        }
        let result = runBody(body)
        guard connection.inTransaction else { return result }  // SQLite rolled everything back
        do {
            if result.failure != nil { try connection.run("ROLLBACK TO liveline_member", [], collect: false) }
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

    /// A member's answer: its own error, else the group's, else its result.
    private static func answer<T>(_ result: Result<T, any Error>, _ outcome: Result<Bool, any Error>) -> Result<T, any Error> {
        if case .failure = result { return result }
        if case .failure(let error) = outcome { return .failure(error) }
        return result
    }
}

extension Result {
    fileprivate var failure: Failure? {
        if case .failure(let error) = self { error } else { nil }
    }
}
