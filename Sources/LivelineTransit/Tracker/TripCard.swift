import Foundation
import LivelineEngine
import LivelineModel
import LivelineStore

/// The card of a tracked ride (context `trip:{id}`): the content state its last evaluation stored
/// (`TripTracker`). Contexts of the type written through `/v1` carry their own state and are not
/// built here.
struct TripCard: SnapshotSource {
    func contentState(of context: ContextRecord, in transaction: any SQLTransaction) throws -> JSONValue {
        let id = String(context.key.dropFirst("trip:".count))
        guard context.key.hasPrefix("trip:"),
            let state = try transaction.queryOne("SELECT state FROM transit_tracked_trips WHERE id = $1", [.text(id)])?.string("state")
        else { throw EngineError("\(context.key) is no tracked ride") }
        return try JSONValue(json: Data(state.utf8))
    }
}
