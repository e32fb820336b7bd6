import Foundation
import LivelineAPI
import LivelineCookSuggestModel
import LivelineModel
import LivelineShopping
import LivelineStore

/// Meal planning for two (`docs/features/cook-suggest.md`), as a feature of the server: its tables,
/// the per-participant card, the jobs (invitation, proposals, finalizing) and the TTL, its routes.
/// The decided dish's ingredients go onto the shopping list through the shopping feature's own
/// operation, so the shopping feature must be installed too.
public struct CookSuggestFeature: Feature {
    public init() {}

    public var name: String { "cooksuggest" }
    public var contracts: [any LiveActivityContract.Type] { [CookSuggestActivityAttributes.self] }
    public var migrations: [Migration] { CookSuggestMigrations.all }

    /// `LIVELINE_COOKSUGGEST_TTL_S`: at most 8 hours, as the engine ends every card 8 hours after
    /// it started.
    public static let ttl = Setting(
        "LIVELINE_COOKSUGGEST_TTL_S", default: "7200", range: 60...8 * 3600,
        meaning: "a meal-planning session nobody took a step in for this many seconds is cancelled (its cards end)"
    )
    public static let thinkTime = Setting(
        "LIVELINE_COOKSUGGEST_THINK_MS", default: "2000", range: 0...600_000,
        meaning: "the least time in milliseconds a session spends generating proposals, so the cards show the kitchen thinking"
    )
    public static let timeZone = Setting(
        "LIVELINE_COOKSUGGEST_TIME_ZONE", default: "Europe/Berlin", values: "a time zone name such as Europe/Berlin",
        meaning: "the time zone whose today a session plans when its create names no date"
    )
    public var settings: [Setting] { [Self.ttl, Self.thinkTime, Self.timeZone] }

    public func install(into setup: FeatureSetup) throws {
        let ttl = try setup.integer(Self.ttl)
        let think = try setup.integer(Self.thinkTime)
        let zoneName = setup.environment[Self.timeZone.name] ?? Self.timeZone.defaultValue
        guard let zone = TimeZone(identifier: zoneName) else { throw FeatureSettingError(Self.timeZone.refusal(zoneName)) }
        // The shopping feature's domain with its own setting: adding as the initiator refreshes
        // their shopping session as any add does.
        let presence = try setup.integer(ShoppingFeature.presenceTimeout)
        let shopping = ShoppingDomain(door: setup.door, presenceTimeout: TimeInterval(presence))
        let domain = CookSuggestDomain(door: setup.door, shopping: shopping, ttl: TimeInterval(ttl), thinkTime: TimeInterval(think) / 1000)
        let type = CookSuggestActivityAttributes.typeName
        setup.snapshotSource(CookSuggestCard(domain: domain), for: type)
        // A card without news for 30 minutes is stale (docs/engine.md, "Lifecycle"); an ended one is gone
        // about 2 minutes later.
        setup.lifecycle(ActivityLifecycle(staleAfter: 30 * 60, dismissAfter: 120), for: type)
        let jobs = CookSuggestJobs(domain: domain, logger: setup.logger)
        let sweep = CookSuggestSweep(jobs: jobs)
        setup.engineTask { engine, now in sweep.run(engine: engine, now: now) }
        setup.routes { router, context in
            CookSuggestHandlers(context: context, domain: domain, jobs: jobs, timeZone: zone).addRoutes(to: &router)
        }
        setup.documentation(CookSuggestDocumentation.part)
    }
}
