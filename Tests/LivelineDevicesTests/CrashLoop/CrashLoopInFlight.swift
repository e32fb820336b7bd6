import Foundation
import LivelineStore
import Synchronization

/// The outbox rows in flight at the kills: leased to a dispatcher when its process died. Their
/// pushes may have reached APNs without their answers being recorded, so they go out again once
/// the lease ran out; nothing else can be sent twice by a kill.
final class CrashLoopInFlight: Sendable {
    struct Counts: Sendable {
        /// Rows leased at a kill (a row counted again only when leased again, by a later life).
        var rows = 0
        /// The most pushes those rows could have sent: a context's sync reaches its channel and
        /// every device, any other row one target.
        var sendBound = 0
        /// Of those rows, the push-to-starts.
        var starts = 0
        var seen: Set<String> = []
    }
    private let counts = Mutex(Counts())

    var rows: Int { counts.withLock { $0.rows } }
    var sendBound: Int { counts.withLock { $0.sendBound } }
    var starts: Int { counts.withLock { $0.starts } }

    /// Reads the rows leased right now (the process that held them is dead).
    func note(store: Store, devices: Int) throws {
        let leased = try store.database.read { transaction in
            try transaction.query("SELECT id, kind, target, lease_owner, idempotency_key FROM outbox WHERE status = 'leased'").map { row in
                (
                    id: try row.int("id"), kind: try row.string("kind"), target: try row.optionalString("target"),
                    owner: try row.optionalString("lease_owner") ?? "",
                    start: try row.optionalString("idempotency_key")?.hasPrefix("start:") == true
                )
            }
        }
        counts.withLock { counts in
            for row in leased where counts.seen.insert("\(row.id) \(row.owner)").inserted {
                counts.rows += 1
                if row.start { counts.starts += 1 }
                counts.sendBound += row.kind == "sync" && row.target == nil ? devices + 1 : 1
            }
        }
    }
}
