import Foundation
import LivelineAPI
import LivelineModel
import LivelineShoppingModel
import LivelineStore

/// The household's weekly shopping list and its Live Activity (docs/features/shopping.md), as a
/// feature of the server: its tables, the card's snapshot, the sweep of lapsed sessions, its
/// routes, and the card's lifecycle (stale after an hour, gone 15 minutes after the trip).
public struct ShoppingFeature: Feature {
    public init() {}

    public var name: String { "shopping" }
    public var contracts: [any LiveActivityContract.Type] { [ShoppingActivityAttributes.self] }
    public var migrations: [Migration] { ShoppingMigrations.all }

    /// `LIVELINE_SHOPPING_PRESENCE_TIMEOUT_S`.
    public static let presenceTimeout = Setting(
        "LIVELINE_SHOPPING_PRESENCE_TIMEOUT_S", default: "900", range: 10...86_400,
        meaning: "a shopper without a heartbeat (or an item change) for this many seconds leaves the card's activeShoppers"
    )
    public var settings: [Setting] { [Self.presenceTimeout] }

    public func install(into setup: FeatureSetup) throws {
        let timeout = try setup.integer(Self.presenceTimeout)
        let domain = ShoppingDomain(door: setup.door, presenceTimeout: TimeInterval(timeout))
        let type = ShoppingActivityAttributes.typeName
        setup.snapshotSource(ShoppingSnapshotSource(domain: domain, clock: setup.clock), for: type)
        setup.lifecycle(ActivityLifecycle(staleAfter: 60 * 60, dismissAfter: 15 * 60), for: type)
        let logger = setup.logger
        setup.periodicTask(
            ShoppingSessionExpiry(domain: domain, report: { line in logger.warning("shopping.expiryFailed", [("message", .string(line))]) }))
        setup.routes { router, context in ShoppingHandlers(context: context, domain: domain).addRoutes(to: &router) }
        setup.documentation(ShoppingDocumentation.part)
    }
}
