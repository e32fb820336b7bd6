import Foundation
import LivelineAPI
import LivelineHTTP
import LivelineModel
import LivelineStore

/// Validates a `POST /api/apns/register` body and turns it into a registration (`docs/engine.md`,
/// "Push tokens"). Every failure is a 400 naming the field and what was expected; nothing is
/// stored then. A missing or null token is such a failure: it never deletes anything.
struct TokenRegistrationRules: Sendable {
    /// Environment of a token registered without one.
    let defaultEnvironment: PushEnvironment
    /// The contracts a push-to-start token may be registered for (compiled in or loaded); nil
    /// accepts any Swift type name.
    let contracts: ContractRegistry?
    /// `LIVELINE_WEBPUSH_ALLOW_INSECURE`: `http://` web push endpoints on this machine are accepted.
    var allowInsecureWebPush = false
    /// The features' names: with the contracts' names, the widget kinds a `widgets` token may
    /// serve (``WidgetPushes``).
    var featureNames: [String] = []

    func registration(_ body: RegisterTokenRequest, caller: Caller) throws -> TokenRegistration {
        guard let kind = body.kind else {
            throw HTTPError.badRequest("kind is required: \(PushTokenKind.expectation)", field: "kind")
        }
        guard let raw = body.token, !raw.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw HTTPError.badRequest(
                "token is required, not null or empty: \(TokenFields.tokenExpectation) (a missing token never deletes one; use DELETE)",
                field: "token")
        }
        // The store keys a web-push subscription by its endpoint; the device stays the caller's.
        let deviceID = try Self.deviceID(body.deviceID) ?? "session-\(caller.sessionID)"
        let token: String
        var attributesType: String?
        var contextKey: String?
        switch kind {
        case .alert, .pushToStart, .update, .widgets:
            token = try Self.apnsToken(raw)
        case .webPush:
            let subscription = try Self.webPushSubscription(raw, allowInsecure: allowInsecureWebPush)
            token = subscription.canonicalJSON
        }
        switch kind {
        case .pushToStart:
            attributesType = try attributes(body.attributesType)
        case .update:
            contextKey = try Self.contextKey(body.contextKey)
        case .alert, .webPush, .widgets:
            break
        }
        return TokenRegistration(
            householdID: caller.householdID, userID: caller.userID, deviceID: deviceID, kind: kind,
            environment: body.environment ?? defaultEnvironment, token: token,
            attributesType: attributesType, contextKey: contextKey,
            frequentPushesEnabled: body.frequentPushesEnabled ?? false, environmentSource: body.environment == nil ? .default : .app,
            contractFingerprint: try contractFingerprint(body.contractFingerprint, kind: kind),
            widgetKinds: try widgetKinds(body.widgetKinds, kind: kind),
            activityID: try Self.activityID(body.activityID, kind: kind)
        )
    }

    /// An APNs device token: hex digits, an even count. Apple says to assume no length, so any
    /// length from 8 to 1024 bytes is accepted. Stored lower-cased.
    static func apnsToken(_ raw: String) throws -> String {
        try TokenFields.apnsToken.text(raw).lowercased()
    }

    /// A web-push token: the subscription JSON `{endpoint, keys: {p256dh, auth}}` (RFC 8291),
    /// each field checked by its rule (``TokenFields``): an `https` push service by name (or `http`
    /// to this machine with `allowInsecure`), a key of the shape of an uncompressed P-256 point and
    /// a 16-byte secret. Whether the key is a point on the curve is found at the first push, which
    /// then ends the subscription (docs/operations.md, "Web Push").
    static func webPushSubscription(_ raw: String, allowInsecure: Bool) throws -> WebPushSubscription {
        let subscription = try decodeSubscription(raw, schema: TokenFields.subscription(allowInsecure: allowInsecure))
        try TokenFields.endpoint(allowInsecure: allowInsecure).text(subscription.endpoint)
        try TokenFields.p256dh.text(subscription.keys.p256dh)
        try TokenFields.webPushAuth.text(subscription.keys.auth)
        return subscription
    }

    /// A subscription to remove: decoded, its fields text, whatever the rules of registration
    /// were when it was stored (``TokenFields/storedSubscription``).
    static func storedSubscription(_ raw: String) throws -> WebPushSubscription {
        let subscription = try decodeSubscription(raw, schema: TokenFields.storedSubscription)
        for (name, value) in [
            ("token.endpoint", subscription.endpoint), ("token.keys.p256dh", subscription.keys.p256dh), ("token.keys.auth", subscription.keys.auth),
        ] {
            try FieldRule(name, .text(length: 1...2048)).text(value)
        }
        return subscription
    }

    /// The subscription JSON decoded; a problem is told in the words of `schema`.
    private static func decodeSubscription(_ raw: String, schema: JSONValue) throws -> WebPushSubscription {
        do {
            return try JSONDecoder().decode(WebPushSubscription.self, fromUntrusted: Data(raw.utf8))
        } catch let error as DecodingError {
            // Told as the same subscription sent as an object is (`token.keys.auth is required: …`).
            var problem = DecodingProblem(error, in: try? JSONValue(json: Data(raw.utf8)))
            if problem.kind == .notJSON { problem = DecodingProblem(path: [], kind: .invalid, found: DecodingProblem.words(for: .string(raw))) }
            let expected = RequestSchema(root: schema).expectation(at: problem.path)
            problem.path.insert(.key("token"), at: 0)
            throw HTTPError.badRequest(problem.message(expecting: expected), field: problem.keyPath)
        } catch {
            throw HTTPError.badRequest("a web-push token is the subscription JSON {endpoint, keys: {p256dh, auth}}", field: "token")
        }
    }

    func attributes(_ value: String?) throws -> String {
        guard let value, !value.isEmpty else {
            throw HTTPError.badRequest("attributes_type is required for la-pushToStart (the ActivityAttributes type name)", field: "attributes_type")
        }
        if let contracts, contracts.contract(named: value) == nil {
            throw HTTPError.badRequest(
                "attributes_type '\(value)' is not a known contract; known: \(contracts.names.sorted().joined(separator: ", "))",
                field: "attributes_type"
            )
        }
        guard Self.isSwiftTypeName(value) else {
            throw HTTPError.badRequest("attributes_type must be a Swift type name such as DeliveryActivityAttributes", field: "attributes_type")
        }
        return value
    }

    /// The fingerprint of the contract the app was built with: a Live Activity token's only.
    func contractFingerprint(_ value: String?, kind: PushTokenKind) throws -> String? {
        guard let value else { return nil }
        guard kind == .pushToStart || kind == .update else {
            throw HTTPError.badRequest(
                "contract_fingerprint is for la-pushToStart and la-update tokens (the contract the app was built with), not \(kind.rawValue)",
                field: "contract_fingerprint")
        }
        return try TokenFields.contractFingerprint.text(value)
    }

    /// The activity an `la-update` token's card is (ActivityKit's `Activity.id`); for any other
    /// kind refused.
    static func activityID(_ value: String?, kind: PushTokenKind) throws -> String? {
        guard let value else { return nil }
        guard kind == .update else {
            throw HTTPError.badRequest("activity_id is for la-update tokens (the activity the card is), not \(kind.rawValue)", field: "activity_id")
        }
        return try TokenFields.activityID.text(value)
    }

    /// The widget kinds of a `widgets` token (`docs/api.md`, "Push tokens"): required,
    /// 1 to ``TokenFields/widgetKindsLimit`` of them, each a feature's name or a contract's type
    /// name; for any other kind refused.
    ///
    /// Related Apple documentation: "Updating widgets with WidgetKit push notifications"
    /// (https://developer.apple.com/documentation/widgetkit/updating-widgets-with-widgetkit-push-notifications).
    func widgetKinds(_ value: [String]?, kind: PushTokenKind) throws -> [String]? {
        guard kind == .widgets else {
            guard value == nil else {
                throw HTTPError.badRequest(
                    "widget_kinds is for widgets tokens (the kinds of their widgets), not \(kind.rawValue)", field: "widget_kinds")
            }
            return nil
        }
        let known = Self.widgetKinds(featureNames: featureNames, contractNames: contracts?.names ?? [])
        guard let value, !value.isEmpty, value.count <= TokenFields.widgetKindsLimit else {
            throw HTTPError.badRequest(
                "widget_kinds is required for widgets: 1 to \(TokenFields.widgetKindsLimit) widget kinds, each one of \(known.joined(separator: ", "))",
                field: "widget_kinds")
        }
        for (index, name) in value.enumerated() where !known.contains(name) && (contracts != nil || !Self.isSwiftTypeName(name)) {
            throw HTTPError.badRequest(
                "widget_kinds[\(index)] '\(name)' is not a known widget kind; known: \(known.joined(separator: ", "))", field: "widget_kinds")
        }
        return value
    }

    /// The widget kinds a `widgets` token may serve: the features' names and the contracts'
    /// type names, sorted, each once.
    static func widgetKinds(featureNames: [String], contractNames: [String]) -> [String] {
        Array(Set(featureNames + contractNames)).sorted()
    }

    static func contextKey(_ value: String?) throws -> String {
        guard let value, !value.isEmpty else {
            throw HTTPError.badRequest("context_key is required for la-update (the context the activity shows)", field: "context_key")
        }
        return try TokenFields.contextKey.text(value)
    }

    static func deviceID(_ value: String?) throws -> String? {
        guard let value else { return nil }
        return try TokenFields.deviceID.text(value)
    }

    static func isSwiftTypeName(_ value: String) -> Bool {
        guard let first = value.unicodeScalars.first, first.properties.isAlphabetic || first == "_" else { return false }
        return value.count <= 128 && value.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" }
    }
}
