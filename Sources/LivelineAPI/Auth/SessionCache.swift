import Dispatch
import Synchronization

/// Recently authenticated bearer tokens (by hash), so a busy client does not cost a database
/// read per request. An entry lives `lifetime` seconds; a token that was never valid is not
/// cached. Sessions cannot be revoked yet; when they can, revocation must call `removeAll()`.
final class SessionCache: Sendable {
    private struct Entry {
        let caller: Caller
        let expires: UInt64
    }

    private let entries = Mutex<[String: Entry]>([:])
    private let lifetimeNanoseconds: UInt64
    private let capacity: Int

    init(lifetimeSeconds: UInt64 = 60, capacity: Int = 50_000) {
        self.lifetimeNanoseconds = lifetimeSeconds * 1_000_000_000
        self.capacity = capacity
    }

    func caller(forTokenHash hash: String) -> Caller? {
        let now = DispatchTime.now().uptimeNanoseconds
        return entries.withLock { entries in
            guard let entry = entries[hash] else { return nil }
            if entry.expires < now {
                entries[hash] = nil
                return nil
            }
            return entry.caller
        }
    }

    func store(_ caller: Caller, forTokenHash hash: String) {
        let expires = DispatchTime.now().uptimeNanoseconds + lifetimeNanoseconds
        entries.withLock { entries in
            if entries.count >= capacity { entries.removeAll(keepingCapacity: true) }
            entries[hash] = Entry(caller: caller, expires: expires)
        }
    }

    func removeAll() { entries.withLock { $0.removeAll() } }
}
