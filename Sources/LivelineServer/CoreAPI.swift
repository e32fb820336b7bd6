import Foundation
import LivelineAPI
import LivelineCrypto
import LivelineEngine
import LivelineHTTP
import LivelineModel
import LivelinePushWire

/// The core API's routes and the features' routes, documented: what the composition root serves
/// besides the dashboard (docs/architecture.md, "The path of a write").
public enum CoreAPI {
    /// A router with every core route, then the features' routes from `setup`, then the bodies'
    /// documentation (`/openapi.json` describes all of them).
    public static func router(
        configuration: ServerConfiguration, engine: Engine, auth: Authenticator, webPush identity: VAPIDIdentity, setup: FeatureSetup,
        sandboxRecord: SandboxRecord?, version: String, clock: @escaping @Sendable () -> Date
    ) throws -> Router {
        var router = Router()
        router.mapError = APIErrors.map
        let featureNames = Array(engine.configuration.widgetPushes.typesByFeature.keys)
        let operations = try OperationHandlers(
            version: version, features: setup.documentationParts, registry: engine.contracts, clock: clock,
            allowInsecureWebPush: configuration.webPushAllowInsecure, featureNames: featureNames)
        operations.addRoutes(to: &router)
        AccountHandlers(auth: auth, engine: engine).addRoutes(to: &router)
        PushTokenHandlers(
            auth: auth, engine: engine,
            rules: TokenRegistrationRules(
                defaultEnvironment: configuration.defaultPushEnvironment, contracts: engine.contracts,
                allowInsecureWebPush: configuration.webPushAllowInsecure, featureNames: featureNames
            )
        ).addRoutes(to: &router)
        ContextHandlers(auth: auth, engine: engine, registry: engine.contracts, clock: clock).addRoutes(to: &router)
        ContractHandlers(auth: auth, engine: engine).addRoutes(to: &router)
        ActivityReportHandlers(auth: auth, engine: engine, clock: clock).addRoutes(to: &router)
        NotificationHandlers(auth: auth, engine: engine, webPush: identity, clock: clock).addRoutes(to: &router)
        MetricsHandler(auth: auth, engine: engine, clock: clock, features: { setup.metricFamilies }).addRoutes(to: &router)
        SandboxAcceptedHandler(auth: auth, record: sandboxRecord).addRoutes(to: &router)
        try setup.addRoutes(to: &router, context: FeatureContext(engine: engine, auth: auth, clock: clock))
        operations.describeBodies(in: &router)
        return router
    }
}
