import LivelineStore
import Synchronization

/// The encoded `GET /api/apns/register` answer per user, kept while the registry has not been
/// written since (checked with the registry's ``ChangeCounter``, read before the data).
final class TokenListCache: Sendable {
    private struct Entry {
        let version: UInt64
        let body: [UInt8]
    }

    private let entries = Mutex<[UserID: Entry]>([:])
    private let changes: ChangeCounter
    private let capacity = 10_000

    init(changes: ChangeCounter) {
        self.changes = changes
    }

    /// The cached body for `userID`, or `build()`'s, which is then cached.
    func body(userID: UserID, build: () throws -> [UInt8]) rethrows -> [UInt8] {
        let version = changes.value
        if let entry = entries.withLock({ $0[userID] }), entry.version == version {
            return entry.body
        }
        let body = try build()
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[userID] = Entry(version: version, body: body)
        }
        return body
    }
}
