import LivelineAPI
import LivelineCrypto
import LivelineModel

/// The input fields of `POST`/`DELETE /api/apns/register`, declared once (``FieldRule``); the
/// document's `RegisterToken` and `UnregisterToken` are made from them (``schemas``).
enum TokenFields {
    /// An APNs device token: hex digits, an even number, 16 to 2048 of them (Apple says to assume
    /// no length).
    static let apnsToken = FieldRule(
        "token",
        .text(
            length: 16...2048,
            format: TextFormat(
                name: nil, pattern: "^([0-9A-Fa-f]{2})+$", about: "the APNs token as hex digits (an even number, 16 to 2048 of them)",
                isValid: { text in text.utf8.count % 2 == 0 && text.utf8.allSatisfy(isHex) })),
        about: "the APNs token")
    static let deviceID = CommonFields.visible("device_id", 1...128, about: "the device")
    static let contextKey = CommonFields.visible("context_key", 1...200, about: "the context the activity shows")
    static let attributesType = FieldRule("attributes_type", .oneOf(ContractRegistry.known.names), about: "the ActivityAttributes type")
    static let environment = FieldRule("environment", .oneOf(["sandbox", "production"]), about: "the token's APNs environment")
    /// `keys.auth` of a web-push subscription: a 16-byte secret, base64url.
    static let webPushAuth = FieldRule(
        "token.keys.auth",
        .text(
            length: 22...24,
            format: TextFormat(
                name: nil, pattern: "^[A-Za-z0-9_-]{22}(==)?$", about: "a 16-byte secret, base64url", isValid: { Base64URL.decode($0)?.count == 16 })),
        about: "the subscription's secret")

    static func isHex(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains(byte)
            || (UInt8(ascii: "A")...UInt8(ascii: "F")).contains(byte)
    }

    /// A web-push subscription `{endpoint, keys: {p256dh, auth}}` (RFC 8291). The endpoint's and
    /// the key's validity (an `https` push service on the internet, a point on P-256) are custom
    /// formats: `Tests/LivelineServerTests/OpenAPI/schemathesis_hooks.py` makes valid ones.
    static let subscription: JSONValue = [
        "type": "object",
        "description": "the browser's PushSubscription (toJSON())",
        "properties": [
            "endpoint": [
                "type": "string", "format": "push-service-url",
                "description": "an https URL of a push service on the internet (not a private or local address)",
            ],
            "keys": [
                "type": "object",
                "properties": [
                    "p256dh": [
                        "type": "string", "format": "p256-public-key",
                        "description": "an uncompressed P-256 public key (65 bytes), base64url",
                    ],
                    "auth": webPushAuth.schema,
                ],
                "required": ["p256dh", "auth"],
            ],
        ],
        "required": ["endpoint", "keys"],
    ]

    /// What `token` is, in the words of the documented body (an APNs token, or a subscription).
    static let tokenExpectation = RequestSchema(root: schemas["RegisterToken"]!).expectation(at: [.key("token")]) ?? "a push token"

    static func kind(_ kinds: [PushTokenKind]) -> JSONValue { ["type": "string", "enum": .array(kinds.map { .string($0.rawValue) })] }

    static let schemas: [String: JSONValue] = [
        "RegisterToken": [
            "description": "one variant per kind: each names the fields that kind needs",
            "oneOf": [
                registration([.alert], token: apnsToken.schema),
                registration([.update], token: apnsToken.schema, needs: ("context_key", contextKey.schema)),
                registration([.pushToStart], token: apnsToken.schema, needs: ("attributes_type", attributesType.schema)),
                registration([.webPush], token: subscription),
            ],
        ],
        "UnregisterToken": [
            "description": "the token to remove: an APNs token, or a web-push subscription",
            "oneOf": [
                [
                    "type": "object", "properties": ["kind": kind([.alert, .update, .pushToStart]), "token": apnsToken.schema], "required": ["token"],
                ],
                ["type": "object", "properties": ["kind": kind(PushTokenKind.allCases), "token": subscription], "required": ["token"]],
            ],
        ],
    ]

    static func registration(_ kinds: [PushTokenKind], token: JSONValue, needs: (String, JSONValue)? = nil) -> JSONValue {
        var properties: [String: JSONValue] = [
            "kind": kind(kinds), "token": token, "environment": environment.schema, "device_id": deviceID.schema,
            "frequent_pushes_enabled": ["type": "boolean"],
        ]
        var required: [JSONValue] = ["kind", "token"]
        if let (name, schema) = needs {
            properties[name] = schema
            required.append(.string(name))
        }
        return ["type": "object", "properties": .object(properties), "required": .array(required)]
    }
}
