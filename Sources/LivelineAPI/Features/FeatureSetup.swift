import Foundation
import LivelineEngine
import LivelineHTTP
import LivelineLog
import LivelineModel
import Synchronization

/// What features contribute while the server is assembled (``Feature/install(into:)``). Sources,
/// tasks and lifecycle defaults go into the engine; the routes are added once the engine exists,
/// with a ``FeatureContext`` to reach it.
public final class FeatureSetup: Sendable {
    /// The server's environment (a feature reads its own `LIVELINE_…` settings from it).
    public let environment: [String: String]
    /// The server's clock.
    public let clock: @Sendable () -> Date
    /// The engine's door for the feature's writes and reads (usable before the engine runs).
    public let door: EngineDoor
    /// The server's log (JSON lines; never a push token, bearer token or key).
    public let logger: Logger

    private struct Parts {
        var sources: [String: any SnapshotSource] = [:]
        var tasks: [any PeriodicTask] = []
        var lifecycle: [String: ActivityLifecycle] = [:]
        var routes: [@Sendable (inout Router, FeatureContext) throws -> Void] = []
        var documentation: [APIDocumentationPart] = []
        var metrics: [@Sendable () -> [MetricFamily]] = []
        var panels: [DashboardPanel] = []
    }
    private let parts = Mutex(Parts())
    /// The engine, once the server built it (``addRoutes(to:context:)``): what ``engineTask(_:)``
    /// tasks are given.
    private let engine = EngineSlot()

    public init(environment: [String: String], clock: @escaping @Sendable () -> Date, door: EngineDoor, logger: Logger) {
        self.environment = environment
        self.clock = clock
        self.door = door
        self.logger = logger
    }

    /// Builds the content state of every context of `activityType` at send time.
    public func snapshotSource(_ source: any SnapshotSource, for activityType: String) {
        parts.withLock { $0.sources[activityType] = source }
    }

    /// Work to run with the engine's periodic sweep.
    public func periodicTask(_ task: any PeriodicTask) {
        parts.withLock { $0.tasks.append(task) }
    }

    /// Work to run with the engine's periodic sweep that needs the engine itself (a push-to-start,
    /// a notify): it runs from the first sweep after the engine exists, with the engine and the
    /// sweep's time.
    public func engineTask(_ run: @escaping @Sendable (Engine, Date) -> Void) {
        periodicTask(EngineBoundTask(slot: engine, run: run))
    }

    /// The stale and dismissal times of `activityType`'s pushes.
    public func lifecycle(_ lifecycle: ActivityLifecycle, for activityType: String) {
        parts.withLock { $0.lifecycle[activityType] = lifecycle }
    }

    /// Adds routes once the engine exists; each route must also be documented.
    public func routes(_ add: @escaping @Sendable (inout Router, FeatureContext) throws -> Void) {
        parts.withLock { $0.routes.append(add) }
    }

    /// Metric families of the feature for `/metrics`, read at every scrape.
    public func metrics(_ families: @escaping @Sendable () -> [MetricFamily]) {
        parts.withLock { $0.metrics.append(families) }
    }

    /// A page of the feature in the dashboard (`/dashboard/{slug}`, behind its sign-in).
    public func dashboardPage(_ panel: DashboardPanel) {
        parts.withLock { $0.panels.append(panel) }
    }

    /// The documentation of the feature's routes and their bodies.
    public func documentation(_ part: APIDocumentationPart) {
        parts.withLock { $0.documentation.append(part) }
    }

    // MARK: Read by the server that assembles the features

    public var sources: [String: any SnapshotSource] { parts.withLock { $0.sources } }
    public var tasks: [any PeriodicTask] { parts.withLock { $0.tasks } }
    public var lifecycleByType: [String: ActivityLifecycle] { parts.withLock { $0.lifecycle } }
    public var documentationParts: [APIDocumentationPart] { parts.withLock { $0.documentation } }
    public var dashboardPanels: [DashboardPanel] { parts.withLock { $0.panels } }
    /// Every feature's metric families as of now.
    public var metricFamilies: [MetricFamily] { parts.withLock { $0.metrics }.flatMap { $0() } }

    /// Adds every feature's routes; from now on ``engineTask(_:)`` tasks run with `context.engine`.
    public func addRoutes(to router: inout Router, context: FeatureContext) throws {
        engine.set(context.engine)
        for add in parts.withLock({ $0.routes }) { try add(&router, context) }
    }
}

/// The engine, set once it exists.
private final class EngineSlot: Sendable {
    private let engine = Mutex<Engine?>(nil)
    func set(_ value: Engine) { engine.withLock { $0 = value } }
    var value: Engine? { engine.withLock { $0 } }
}

/// A periodic task that needs the engine: it does nothing until the engine exists.
private struct EngineBoundTask: PeriodicTask {
    let slot: EngineSlot
    let run: @Sendable (Engine, Date) -> Void

    func run(now: Date) {
        guard let engine = slot.value else { return }
        run(engine, now)
    }
}

/// What a feature's handlers reach: the engine (the only door for writes), who is calling, and the clock.
public struct FeatureContext: Sendable {
    public let engine: Engine
    public let auth: Authenticator
    public let clock: @Sendable () -> Date

    public init(engine: Engine, auth: Authenticator, clock: @escaping @Sendable () -> Date) {
        self.engine = engine
        self.auth = auth
        self.clock = clock
    }
}

extension FeatureSetup {
    /// The whole-number `setting` (one with a range and a whole-number default), else its
    /// default; a malformed value is an error naming the variable and what it expects.
    public func integer(_ setting: Setting) throws -> Int {
        guard let fallback = Int(setting.defaultValue) else { preconditionFailure("\(setting.name) has no whole-number default") }
        guard let text = environment[setting.name] else { return fallback }
        guard let value = setting.wholeNumber(text) else { throw FeatureSettingError(setting.refusal(text)) }
        return value
    }
}

/// A feature's setting that cannot be used; the message names it and what was expected.
public struct FeatureSettingError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// A family of samples in `/metrics` (the Prometheus text format): a counter or a gauge.
public struct MetricFamily: Sendable {
    public var name: String
    /// `counter` or `gauge`.
    public var type: String
    public var help: String
    public var samples: [(labels: [String: String], value: Double)]

    public init(name: String, type: String, help: String, samples: [(labels: [String: String], value: Double)]) {
        self.name = name
        self.type = type
        self.help = help
        self.samples = samples
    }
}
