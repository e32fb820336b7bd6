import Synchronization

/// The revisions of contexts as last read, kept while no transaction that may have changed one
/// committed since: every revision bump enqueues a sync in its transaction, and whoever commits
/// such a transaction bumps ``OutboxRepository/enqueued`` afterwards — the version checked here,
/// read *before* the database. The pull an app makes when a push wakes it (`?since_rev=` equal
/// to the current revision) is then answered without a database read.
///
/// Like ``ChangeSignal`` it sees this process's commits: a database shared by several processes
/// (PostgreSQL) must bump the signal on `LISTEN/NOTIFY` for the others' writes.
public final class RevisionCache: Sendable {
    private struct Entry {
        let rev: Int
        let version: UInt64
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let changes: ChangeSignal
    private let capacity = 100_000

    public init(changes: ChangeSignal) {
        self.changes = changes
    }

    /// The revision of `key`: the cached one while nothing committed since it was read, else
    /// `read()`'s (nil for an unknown context; not cached).
    public func revision(key: String, read: () throws -> Int?) rethrows -> Int? {
        let version = changes.value
        if let entry = entries.withLock({ $0[key] }), entry.version == version { return entry.rev }
        guard let rev = try read() else { return nil }
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = Entry(rev: rev, version: version)
        }
        return rev
    }
}
