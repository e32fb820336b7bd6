/// Body of `POST /api/apns/register` and `DELETE /api/apns/register`.
///
/// Apps call register on every launch; it is idempotent. `token` is a hex APNs token, or for
/// `web-push` the subscription JSON (sent as an object or as a string holding it).
public struct RegisterTokenRequest: Codable, Sendable, Hashable {
    public var kind: PushTokenKind?
    public var token: String?
    public var contextKey: String?
    public var attributesType: String?
    public var environment: PushEnvironment?
    public var deviceID: String?
    public var frequentPushesEnabled: Bool?
    /// The fingerprint of the contract the app was built with (`la-pushToStart`, `la-update`):
    /// ``ContractSchema/fingerprint(typeName:)`` of its own type, so the server checks each push
    /// against every version installed.
    public var contractFingerprint: String?
    /// The kinds of the widgets a `widgets` token serves (each `WidgetInfo.kind`, e.g. `shopping`):
    /// each a feature's name or a contract's type name (`docs/api.md`, "Push tokens").
    public var widgetKinds: [String]?
    /// The activity an `la-update` token belongs to: ActivityKit's `Activity.id`, so a report of
    /// that activity (`POST /api/la/activity`) is matched to its card exactly.
    public var activityID: String?

    public init(
        kind: PushTokenKind?, token: String?, contextKey: String? = nil, attributesType: String? = nil,
        environment: PushEnvironment? = nil, deviceID: String? = nil, frequentPushesEnabled: Bool? = nil, contractFingerprint: String? = nil,
        widgetKinds: [String]? = nil, activityID: String? = nil
    ) {
        self.activityID = activityID
        self.contractFingerprint = contractFingerprint
        self.widgetKinds = widgetKinds
        self.kind = kind
        self.token = token
        self.contextKey = contextKey
        self.attributesType = attributesType
        self.environment = environment
        self.deviceID = deviceID
        self.frequentPushesEnabled = frequentPushesEnabled
    }

    enum CodingKeys: String, CodingKey {
        case kind, token, environment
        case contextKey = "context_key"
        case attributesType = "attributes_type"
        case deviceID = "device_id"
        case frequentPushesEnabled = "frequent_pushes_enabled"
        case contractFingerprint = "contract_fingerprint"
        case widgetKinds = "widget_kinds"
        case activityID = "activity_id"
    }

    /// A subscription object `{endpoint, keys}` under `token` (web-push) arrives here as its JSON text.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        kind = try c.decodeIfPresent(PushTokenKind.self, forKey: .kind)
        if c.contains(.token), try !c.decodeNil(forKey: .token) {
            if (try? c.nestedContainer(keyedBy: CodingKeys.self, forKey: .token)) != nil {
                // An object: it must be a whole subscription; its errors name `token.keys.auth` etc.
                token = try c.decode(WebPushSubscription.self, forKey: .token).canonicalJSON
            } else {
                token = try c.decode(String.self, forKey: .token)
            }
        } else {
            token = nil
        }
        contextKey = try c.decodeIfPresent(String.self, forKey: .contextKey)
        attributesType = try c.decodeIfPresent(String.self, forKey: .attributesType)
        environment = try c.decodeIfPresent(PushEnvironment.self, forKey: .environment)
        deviceID = try c.decodeIfPresent(String.self, forKey: .deviceID)
        frequentPushesEnabled = try c.decodeIfPresent(Bool.self, forKey: .frequentPushesEnabled)
        contractFingerprint = try c.decodeIfPresent(String.self, forKey: .contractFingerprint)
        widgetKinds = try c.decodeIfPresent([String].self, forKey: .widgetKinds)
        activityID = try c.decodeIfPresent(String.self, forKey: .activityID)
    }
}
