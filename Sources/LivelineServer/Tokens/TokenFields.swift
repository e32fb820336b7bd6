import LivelineAPI
import LivelineModel

/// The input fields of `POST`/`DELETE /api/apns/register`, declared once (``FieldRule``); the
/// document's `RegisterToken`, `UnregisterToken` and `WebPushSubscription` are made from them
/// (``schemas(allowInsecure:contractNames:)``).
enum TokenFields {
    /// An APNs device token: hex digits, an even number, 16 to 2048 of them (Apple says to assume
    /// no length).
    static let apnsToken = FieldRule(
        "token",
        .text(
            length: 16...2048,
            format: TextFormat(pattern: "^([0-9A-Fa-f]{2})+$", about: "the APNs token as hex digits (an even number, 16 to 2048 of them)")),
        about: "the APNs token")
    static let deviceID = CommonFields.visible("device_id", 1...128, about: "the device")
    static let contextKey = CommonFields.visible("context_key", 1...200, about: "the context the activity shows")
    /// ActivityKit's `Activity.id` of an `la-update` token's card (also of an activity report).
    static let activityID = CommonFields.visible("activity_id", 1...128, about: "the activity the card is (ActivityKit's Activity.id)")
    static func attributesType(_ names: [String]) -> FieldRule {
        FieldRule("attributes_type", .oneOf(names), about: "the ActivityAttributes type")
    }
    /// ``LivelineModel/ContractSchema/fingerprint(typeName:)``: 16 lower-case hex digits.
    static let contractFingerprint = FieldRule(
        "contract_fingerprint",
        .text(length: 16...16, format: TextFormat(pattern: "^[0-9a-f]{16}$", about: "the contract's fingerprint, 16 lower-case hex digits")),
        about: "the fingerprint of the contract the app was built with")
    static let environment = FieldRule("environment", .oneOf(["sandbox", "production"]), about: "the token's APNs environment")
    /// `keys.auth` of a web-push subscription: a 16-byte secret, base64url (22 characters; the
    /// padding `==` may be given).
    static let webPushAuth = FieldRule(
        "token.keys.auth", .text(length: 22...24, format: TextFormat(pattern: "^[A-Za-z0-9_-]{22}(==)?$", about: "a 16-byte secret, base64url")),
        about: "the subscription's secret")
    /// `keys.p256dh`: the shape of an uncompressed P-256 public key, 65 bytes 0x04 ‖ X ‖ Y
    /// (RFC 8291 §3.1), base64url — 87 characters (`=` may follow), the first two `B` and one of
    /// `A`–`P` (those spell the 0x04). Whether it is a point on the curve no pattern can say: a
    /// key that is not ends its subscription at its first push (docs/operations.md, "Web Push").
    static let p256dh = FieldRule(
        "token.keys.p256dh",
        .text(
            length: 87...88,
            format: TextFormat(
                pattern: "^B[A-P][A-Za-z0-9_-]{85}=?$",
                about: "an uncompressed P-256 public key (65 bytes starting 0x04), base64url; one that is not a point on the curve "
                    + "ends the subscription at its first push")),
        about: "the browser's public key")

    /// `endpoint`: `https://`, a DNS host name of two or more labels whose last one starts with
    /// a letter (so no IP address and no single label such as `localhost`), an optional port, an
    /// optional path and query of RFC 3986 characters (``URIPattern``). An address of this
    /// machine or a private network a name resolves to is refused when the push is sent
    /// (`PushServiceAddress`). With `allowInsecure` (`LIVELINE_WEBPUSH_ALLOW_INSECURE`, local push
    /// services and tests) also `http://` or `https://` to `127.0.0.1`, `localhost` or `[::1]`.
    static func endpoint(allowInsecure: Bool) -> FieldRule { allowInsecure ? insecureEndpoint : secureEndpoint }
    private static let secureEndpoint = makeEndpoint(allowInsecure: false)
    private static let insecureEndpoint = makeEndpoint(allowInsecure: true)

    private static func makeEndpoint(allowInsecure: Bool) -> FieldRule {
        let label = "[A-Za-z0-9]+(-+[A-Za-z0-9]+)*"
        let host = "\(label)(\\.\(label))*\\.[A-Za-z][A-Za-z0-9]*(-+[A-Za-z0-9]+)*"
        let port = "(:([1-9][0-9]{0,3}|[1-5][0-9]{4}|6[0-4][0-9]{3}|65[0-4][0-9]{2}|655[0-2][0-9]|6553[0-5]))?"
        let rest = "\(port)(/\(URIPattern.pathOrSlash)*)?(\\?\(URIPattern.queryCharacter)*)?"
        let origin = allowInsecure ? "(https://\(host)|https?://(127\\.0\\.0\\.1|localhost|\\[::1\\]))" : "https://\(host)"
        return FieldRule(
            "token.endpoint",
            .text(
                length: 12...2048,
                format: TextFormat(
                    pattern: "^\(origin)\(rest)$",
                    about: "https:// and a host name (not an IP address, not a single label such as localhost), "
                        + "an optional port, path and query"
                        + (allowInsecure ? "; or, as this server allows insecure web push, http(s) to 127.0.0.1, localhost or [::1]" : ""))),
            about: "the push service's URL for this subscription")
    }

    /// A web-push subscription `{endpoint, keys: {p256dh, auth}}` (RFC 8291), each field exactly
    /// its rule.
    static func subscription(allowInsecure: Bool) -> JSONValue {
        [
            "type": "object",
            "description": "the browser's PushSubscription (toJSON())",
            "properties": [
                "endpoint": endpoint(allowInsecure: allowInsecure).schema,
                "keys": [
                    "type": "object",
                    "properties": ["p256dh": p256dh.schema, "auth": webPushAuth.schema],
                    "required": ["p256dh", "auth"],
                ],
            ],
            "required": ["endpoint", "keys"],
        ]
    }

    /// A subscription to remove: as it was registered, whatever the rules of its endpoint were
    /// then (an endpoint, a key and a secret as text); one registered with other fields is not
    /// found.
    static let storedSubscription: JSONValue = [
        "type": "object",
        "description": "a subscription as it was registered (toJSON()), whatever the endpoint rules were then",
        "properties": [
            "endpoint": storedText("token.endpoint", about: "the push service's URL it was registered with"),
            "keys": [
                "type": "object",
                "properties": [
                    "p256dh": storedText("token.keys.p256dh", about: "the browser's public key"),
                    "auth": storedText("token.keys.auth", about: "the subscription's secret"),
                ],
                "required": ["p256dh", "auth"],
            ],
        ],
        "required": ["endpoint", "keys"],
    ]

    /// A stored subscription's text field: 1 to 2048 characters but U+0000.
    static func storedText(_ name: String, about: String) -> JSONValue { FieldRule(name, .text(length: 1...2048), about: about).schema }

    /// What `token` is, in the words of the documented body (an APNs token, or a subscription).
    static let tokenExpectation =
        RequestSchema(named: "RegisterToken", schemas: { schemas(allowInsecure: false, contractNames: []) }).expectation(at: [.key("token")])
        ?? "a push token"

    /// The most widget kinds one `widgets` token serves.
    static let widgetKindsLimit = 64

    /// `widget_kinds` of a `widgets` token: 1 to ``widgetKindsLimit`` of `kinds` (a repeated one
    /// counts once).
    ///
    /// Related Apple documentation: "Updating widgets with WidgetKit push notifications"
    /// (https://developer.apple.com/documentation/widgetkit/updating-widgets-with-widgetkit-push-notifications).
    static func widgetKinds(_ kinds: [String]) -> JSONValue {
        [
            "type": "array", "minItems": 1, "maxItems": .int(widgetKindsLimit),
            "description": "the kinds of the widgets the token serves (WidgetInfo.kind): a feature's name or a contract's type name",
            "items": ["type": "string", "enum": .array(kinds.map { .string($0) })],
        ]
    }

    static func kind(_ kinds: [PushTokenKind]) -> JSONValue { ["type": "string", "enum": .array(kinds.map { .string($0.rawValue) })] }

    /// `RegisterToken`, `UnregisterToken` and `WebPushSubscription`; `allowInsecure`: the server
    /// takes the endpoints ``endpoint(allowInsecure:)`` allows with it; `contractNames`: the
    /// registry's types, which a push-to-start token names; `widgetKinds`: those a `widgets`
    /// token may serve.
    static func schemas(allowInsecure: Bool, contractNames: [String], widgetKinds: [String] = []) -> [String: JSONValue] {
        [
            "WebPushSubscription": subscription(allowInsecure: allowInsecure),
            "StoredWebPushSubscription": storedSubscription,
            "RegisterToken": [
                "description": "one variant per kind: each names the fields that kind needs",
                "oneOf": [
                    registration([.alert], token: apnsToken.schema),
                    registration([.update], token: apnsToken.schema, needs: ("context_key", contextKey.schema), contract: true, activity: true),
                    registration(
                        [.pushToStart], token: apnsToken.schema, needs: ("attributes_type", attributesType(contractNames).schema), contract: true),
                    registration([.webPush], token: Schema.ref("WebPushSubscription")),
                    registration([.widgets], token: apnsToken.schema, needs: ("widget_kinds", self.widgetKinds(widgetKinds))),
                ],
            ],
            "UnregisterToken": [
                "description": "the token to remove: an APNs token, or a web-push subscription",
                "oneOf": [
                    [
                        "type": "object", "properties": ["kind": kind([.alert, .update, .pushToStart, .widgets]), "token": apnsToken.schema],
                        "required": ["token"],
                    ],
                    [
                        "type": "object", "properties": ["kind": kind(PushTokenKind.allCases), "token": Schema.ref("StoredWebPushSubscription")],
                        "required": ["token"],
                    ],
                ],
            ],
        ]
    }

    static func registration(
        _ kinds: [PushTokenKind], token: JSONValue, needs: (String, JSONValue)? = nil, contract: Bool = false, activity: Bool = false
    ) -> JSONValue {
        var properties: [String: JSONValue] = [
            "kind": kind(kinds), "token": token, "environment": environment.schema, "device_id": deviceID.schema,
            "frequent_pushes_enabled": ["type": "boolean"],
        ]
        if contract { properties["contract_fingerprint"] = contractFingerprint.schema }
        if activity { properties["activity_id"] = activityID.schema }
        var required: [JSONValue] = ["kind", "token"]
        if let (name, schema) = needs {
            properties[name] = schema
            required.append(.string(name))
        }
        return ["type": "object", "properties": .object(properties), "required": .array(required)]
    }
}
