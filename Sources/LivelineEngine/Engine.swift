import Foundation
import LivelineModel
import LivelineStore

/// The generic engine every feature uses: a change commits, the context's revision goes up, and
/// the dispatcher brings the current full snapshot to every channel and token, at least once.
/// Features register a `SnapshotSource` per activity type; contexts of the `/v1` API keep their
/// state as given.
public final class Engine: Sendable {
    public let store: Store
    public let configuration: EngineConfiguration
    public let dispatcher: Dispatcher
    let renderer: SyncRenderer
    public var metrics: EngineMetrics { dispatcher.metrics }

    public init(
        store: Store, sender: any PushSender, configuration: EngineConfiguration, sources: [String: any SnapshotSource] = [:],
        registry: ContractRegistry = .known
    ) {
        self.store = store
        self.configuration = configuration
        renderer = SyncRenderer(store: store, configuration: configuration, sources: sources, registry: registry)
        dispatcher = Dispatcher(store: store, sender: sender, renderer: renderer, configuration: configuration, metrics: EngineMetrics())
    }

    /// Starts the dispatcher's thread.
    public func start() { dispatcher.start() }

    /// Stops the dispatcher after the batch in flight; false when that took longer than `timeout`.
    @discardableResult
    public func stop(timeout: Duration = .seconds(10)) -> Bool { dispatcher.stop(timeout: timeout) }

    /// Pull-reconcile (`engine.md`, "Contexts, revisions, snapshots"): in one read transaction,
    /// the revision first; when it equals `sinceRev`, `.unchanged` and nothing else is read;
    /// else the context and its full content state, built from that same transaction. Nil for an
    /// unknown key.
    public func snapshot(key: String, sinceRev: Int?) throws -> ContextSnapshotRead? {
        try store.database.read { transaction -> ContextSnapshotRead? in
            switch try store.contexts.snapshotRead(key: key, sinceRev: sinceRev, in: transaction) {
            case nil:
                return nil
            case .unchanged(let key, let activityType, let state, let rev)?:
                return .unchanged(key: key, activityType: activityType, state: state, rev: rev)
            case .changed(let context)?:
                return .changed(context, contentState: try renderer.contentState(of: context, in: transaction))
            }
        }
    }
}

/// The engine's answer to a pull: the revision alone, or the context with its content state.
public enum ContextSnapshotRead: Sendable {
    case unchanged(key: String, activityType: String, state: ContextState, rev: Int)
    case changed(ContextRecord, contentState: JSONValue)
}
