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
    public var metrics: EngineMetrics { dispatcher.metrics }

    public init(
        store: Store, sender: any PushSender, configuration: EngineConfiguration, sources: [String: any SnapshotSource] = [:],
        registry: ContractRegistry = .known
    ) {
        self.store = store
        self.configuration = configuration
        let renderer = SyncRenderer(store: store, configuration: configuration, sources: sources, registry: registry)
        dispatcher = Dispatcher(store: store, sender: sender, renderer: renderer, configuration: configuration, metrics: EngineMetrics())
    }

    public func start() { dispatcher.start() }
    public func stop() async { await dispatcher.stop() }
}
