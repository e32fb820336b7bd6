import Dispatch
import Synchronization

/// Recently authenticated bearer tokens (by hash), so a busy client does not cost a database
/// read per request. An entry holds while the database's change version is the one it was read
/// at (``Database/changeVersionOfEveryWriter()`` moves with every commit, of this process or
/// another sharing the database), at most `lifetime` seconds: a session ended anywhere — a sign-out, `liveline
/// users revoke` — is refused at the next request (on PostgreSQL, within the change feed's spacing
/// of another instance's commit). A token that was never valid is not cached.
final class SessionCache: Sendable {
    private struct Entry {
        let caller: Caller
        let version: UInt64
        let expires: UInt64
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let lifetimeNanoseconds: UInt64
    private let capacity: Int

    init(lifetimeSeconds: UInt64 = 60, capacity: Int = 50_000) {
        self.lifetimeNanoseconds = lifetimeSeconds * 1_000_000_000
        self.capacity = capacity
    }

    /// The caller of `hash`, when it was read at change version `version`.
    func caller(forTokenHash hash: String, version: UInt64) -> Caller? {
        let now = DispatchTime.now().uptimeNanoseconds
        return entries.withLock { entries in
            guard let entry = entries[hash] else { return nil }
            if entry.expires < now || entry.version != version {
                entries[hash] = nil
                return nil
            }
            return entry.caller
        }
    }

    func store(_ caller: Caller, forTokenHash hash: String, version: UInt64) {
        let expires = DispatchTime.now().uptimeNanoseconds + lifetimeNanoseconds
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[hash] = Entry(caller: caller, version: version, expires: expires)
        }
    }

    func remove(tokenHash hash: String) { entries.withLock { _ = $0.removeValue(forKey: hash) } }
}
