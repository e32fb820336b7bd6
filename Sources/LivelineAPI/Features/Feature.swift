import Foundation
import LivelineEngine
import LivelineModel
import LivelineStore

/// A feature of the server — the shopping list, meal planning, transit, or one an app adds: one
/// module that plugs in through this one seam (docs/architecture.md, "Adding a feature").
///
/// The server composes its features from a list: their migrations run after the core's, in the
/// list's order, recorded under ``name`` so each runs once; then each feature's ``install(into:)``
/// contributes its snapshot sources, periodic tasks, per-type lifecycle defaults, routes with
/// their documentation, and the settings it reads. The core names no feature. A feature changes
/// data only through the engine (``Engine/write(_:)``): its own tables through the transaction it
/// is given, contexts through the engine's rules.
public protocol Feature: Sendable {
    /// A short lowercase name: its migrations are recorded under it.
    var name: String { get }
    /// The feature's own tables, numbered from 1 within the feature.
    var migrations: [Migration] { get }
    /// The Live Activity contracts it owns: the root's registry holds every feature's.
    var contracts: [any LiveActivityContract.Type] { get }
    /// The `LIVELINE_…` variables it reads: rows of the table `serve --help` and
    /// docs/configuration.md are printed from.
    var settings: [Setting] { get }
    /// Contributes what the feature brings; called once, before the engine starts.
    func install(into setup: FeatureSetup) throws
}

extension Feature {
    public var settings: [Setting] { [] }
    public var contracts: [any LiveActivityContract.Type] { [] }

    /// The feature's migrations under its name.
    public var featureMigrations: FeatureMigrations { FeatureMigrations(feature: name, migrations: migrations) }
}

/// The per-type lifecycle defaults a feature sets for the activity types it owns.
public struct ActivityLifecycle: Sendable, Hashable {
    /// Each update's `stale-date` is this long after it is sent; nil sends none.
    public var staleAfter: TimeInterval?
    /// The end's `dismissal-date` is this long after it is sent (at most 4 hours).
    public var dismissAfter: TimeInterval
    /// Priority-10 pushes per activity and hour for the type (`LIVELINE_PRIORITY_BUDGET_BY_TYPE`
    /// wins); nil: the server's budget.
    public var priorityBudget: Int?
    /// The end's dismissal counts from when the context ended (``EngineWrite/end(_:note:at:)``),
    /// not from when its push is sent: a ride is dismissed 30 s after its arrival.
    public var dismissFromEnd: Bool
    /// The type's cards are renewed before their 8-hour limit (`docs/engine.md`, "Renewal"), as
    /// if `LIVELINE_RENEW_TYPES` named it.
    public var renews: Bool

    public init(
        staleAfter: TimeInterval?, dismissAfter: TimeInterval, priorityBudget: Int? = nil, dismissFromEnd: Bool = false, renews: Bool = false
    ) {
        self.staleAfter = staleAfter
        self.dismissAfter = dismissAfter
        self.priorityBudget = priorityBudget
        self.dismissFromEnd = dismissFromEnd
        self.renews = renews
    }
}
