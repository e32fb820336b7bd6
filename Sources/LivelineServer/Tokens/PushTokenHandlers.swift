import Foundation
import LivelineAPI
import LivelineEngine
import LivelineHTTP
import LivelineModel
import LivelineStore

/// The push-token registry: `POST`, `DELETE` and `GET /api/apns/register` (`docs/engine.md`, "Push tokens").
struct PushTokenHandlers: Sendable {
    let auth: Authenticator
    let engine: Engine
    let rules: TokenRegistrationRules
    let listCache: TokenListCache

    init(auth: Authenticator, engine: Engine, rules: TokenRegistrationRules) {
        self.auth = auth
        self.engine = engine
        self.rules = rules
        self.listCache = TokenListCache(changes: engine.tokenChanges)
    }

    func addRoutes(to router: inout Router) {
        router.add(Routes.registerToken) { request in
            let caller = try auth.caller(of: request)
            let registration = try rules.registration(request.decode(RegisterTokenRequest.self), caller: caller)
            let (outcome, stored) = try engine.registerTokenAsStored(registration)
            return try .json(
                RegisterTokenResponse(
                    outcome: outcome, kind: registration.kind, environment: stored.environment,
                    deviceID: registration.deviceID,
                    tokenPrefix: PushTokenRedaction.redacted(registration.token, kind: registration.kind)
                ))
        }
        router.add(Routes.unregisterToken) { request in
            let caller = try auth.caller(of: request)
            let body = try request.decode(RegisterTokenRequest.self)
            guard let raw = body.token, !raw.isEmpty else {
                throw HTTPError.badRequest("token is required: the token to remove, \(TokenFields.tokenExpectation)", field: "token")
            }
            // Stored tokens are normalised; normalise the same way so the caller's form matches.
            let token: String =
                if body.kind == .webPush || raw.hasPrefix("{") {
                    // As it was stored, whatever the endpoint rules were then (StoredWebPushSubscription).
                    try TokenRegistrationRules.storedSubscription(raw).canonicalJSON
                } else {
                    try TokenRegistrationRules.apnsToken(raw)
                }
            let removed = try engine.unregisterToken(token, householdID: caller.householdID)
            return try .json(UnregisterTokenResponse(removed: removed))
        }
        router.add(Routes.listTokens) { request in
            let caller = try auth.caller(of: request)
            return try .jsonBytes(listCache.body(userID: caller.userID) { try list(userID: caller.userID) })
        }
    }

    /// The user's devices and their active tokens, redacted, as JSON.
    private func list(userID: UserID) throws -> [UInt8] {
        var devices: [String: [DeviceTokensResponse.Token]] = [:]
        for record in try engine.activeTokens(userID: userID) {
            devices[record.deviceID, default: []].append(
                DeviceTokensResponse.Token(
                    kind: record.kind, environment: record.environment,
                    tokenPrefix: PushTokenRedaction.redacted(record.token, kind: record.kind),
                    attributesType: record.attributesType, contextKey: record.contextKey,
                    frequentPushesEnabled: record.frequentPushesEnabled, registeredAt: record.lastRegisteredAt,
                    environmentSource: record.environmentSource.rawValue
                ))
        }
        let list = devices.keys.sorted().map { DeviceTokensResponse.Device(deviceID: $0, tokens: devices[$0]!) }
        return try Array(APICoding.makeEncoder().encode(DeviceTokensResponse(devices: list)))
    }
}
