import Foundation
import LivelineHTTP
import LivelineModel
import LivelineStore

/// The push-token registry: `POST`, `DELETE` and `GET /api/apns/register` (`engine.md`, "Push tokens").
struct PushTokenHandlers: Sendable {
    let auth: Authenticator
    let store: Store
    var tokens: PushTokenRepository { store.tokens }
    let rules: TokenRegistrationRules
    let clock: @Sendable () -> Date
    let listCache: TokenListCache

    init(auth: Authenticator, store: Store, rules: TokenRegistrationRules, clock: @escaping @Sendable () -> Date) {
        self.auth = auth
        self.store = store
        self.rules = rules
        self.clock = clock
        self.listCache = TokenListCache(changes: store.tokens.changes)
    }

    func addRoutes(to router: inout Router) {
        router.add(Routes.registerToken) { request in
            let caller = try auth.caller(of: request)
            let registration = try rules.registration(request.decode(RegisterTokenRequest.self), caller: caller)
            let now = clock()
            let outcome = try tokens.register(registration, now: now)
            if outcome != .unchanged { try catchUp(registration, now: now) }
            return try .json(RegisterTokenResponse(
                outcome: outcome, kind: registration.kind, environment: registration.environment,
                deviceID: registration.deviceID,
                tokenPrefix: TokenRegistrationRules.redacted(registration.token, kind: registration.kind)
            ))
        }
        router.add(Routes.unregisterToken) { request in
            let caller = try auth.caller(of: request)
            let body = try request.decode(RegisterTokenRequest.self)
            guard let raw = body.token, !raw.isEmpty else {
                throw HTTPError.badRequest("token is required: the token to remove", field: "token")
            }
            // Stored tokens are normalised; normalise the same way so the caller's form matches.
            let token: String = if body.kind == .webPush || raw.hasPrefix("{") {
                try TokenRegistrationRules.webPushSubscription(raw).canonicalJSON
            } else {
                try TokenRegistrationRules.apnsToken(raw)
            }
            let removed = try tokens.unregister(token: token, householdID: caller.householdID, now: clock())
            return try .json(UnregisterTokenResponse(removed: removed))
        }
        router.add(Routes.listTokens) { request in
            let caller = try auth.caller(of: request)
            return try .jsonBytes(listCache.body(userID: caller.userID) { try list(userID: caller.userID) })
        }
    }

    /// A new `la-update` token of a running context gets the current state at once (the activity
    /// may have missed changes between its start and its token), as a one-target sync row.
    private func catchUp(_ registration: TokenRegistration, now: Date) throws {
        guard registration.kind == .update, let key = registration.contextKey,
            let context = try store.contexts.context(key: key), context.state == .active, context.rev > 0,
            context.householdID == nil || context.householdID == registration.householdID,
            let token = try tokens.activeToken(
                householdID: registration.householdID, environment: registration.environment, kind: .update, slot: try registration.slot
            ) else { return }
        try store.write { transaction in
            _ = try store.outbox.enqueueSync(contextKey: key, target: .token(token.id), now: now, in: transaction)
        }
    }

    /// The user's devices and their active tokens, redacted, as JSON.
    private func list(userID: Int) throws -> [UInt8] {
        var devices: [String: [DeviceTokensResponse.Token]] = [:]
        for record in try tokens.activeTokens(userID: userID) {
            devices[record.deviceID, default: []].append(DeviceTokensResponse.Token(
                kind: record.kind, environment: record.environment,
                tokenPrefix: TokenRegistrationRules.redacted(record.token, kind: record.kind),
                attributesType: record.attributesType, contextKey: record.contextKey,
                frequentPushesEnabled: record.frequentPushesEnabled, registeredAt: record.lastRegisteredAt
            ))
        }
        let list = devices.keys.sorted().map { DeviceTokensResponse.Device(deviceID: $0, tokens: devices[$0]!) }
        return try Array(APICoding.makeEncoder().encode(DeviceTokensResponse(devices: list)))
    }
}
