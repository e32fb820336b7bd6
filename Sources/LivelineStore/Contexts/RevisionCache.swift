import Synchronization

/// The revisions of contexts as last read, kept while the database's ``Database/changeVersion()``
/// — which moves with every commit, of this process or another sharing the database — stays the
/// same (read *before* the revision). The pull an app makes when a push wakes it (`?since_rev=`
/// equal to the current revision) is then answered without a read transaction. A backend that
/// cannot tell its change version gets no caching: every lookup reads.
public final class RevisionCache: Sendable {
    private struct Entry {
        let rev: Int
        let version: UInt64
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let database: any Database
    private let capacity = 100_000

    public init(database: any Database) {
        self.database = database
    }

    /// The revision of `key`: the cached one while nothing committed since it was read, else
    /// `read()`'s (nil for an unknown context; not cached).
    public func revision(key: String, read: () throws -> Int?) throws -> Int? {
        guard let version = try database.changeVersion() else { return try read() }
        if let entry = entries.withLock({ $0[key] }), entry.version == version { return entry.rev }
        guard let rev = try read() else { return nil }
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[key] = Entry(rev: rev, version: version)
        }
        return rev
    }
}
