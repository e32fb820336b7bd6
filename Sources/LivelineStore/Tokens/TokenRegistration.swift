import Foundation
import LivelineModel

/// One `POST /api/apns/register` call, validated by the caller: who registers which token where.
public struct TokenRegistration: Sendable, Hashable {
    public var householdID: HouseholdID
    public var userID: UserID
    /// The app's device id. For `web-push` it is stored as given but not part of the slot.
    public var deviceID: String
    public var kind: PushTokenKind
    public var environment: PushEnvironment
    /// A hex APNs token, or for `web-push` the subscription's canonical JSON
    /// (``LivelineModel/WebPushSubscription/canonicalJSON``).
    public var token: String
    /// Required for `la-pushToStart`.
    public var attributesType: String?
    /// Required for `la-update`.
    public var contextKey: String?
    public var frequentPushesEnabled: Bool
    /// Whether the app gave `environment` (else the server's default was taken).
    public var environmentSource: PushEnvironmentSource
    /// The fingerprint of the contract the app's build was compiled with (`la-pushToStart`,
    /// `la-update`), when the app said (``LivelineModel/ContractSchema``).
    public var contractFingerprint: String?
    /// The kinds of the widgets a `widgets` token serves, sorted and each once; nil for the other kinds.
    public var widgetKinds: [String]?
    /// The activity an `la-update` token belongs to (ActivityKit's `Activity.id`), when the app said.
    public var activityID: String?

    public init(
        householdID: HouseholdID, userID: UserID, deviceID: String, kind: PushTokenKind, environment: PushEnvironment, token: String,
        attributesType: String? = nil, contextKey: String? = nil, frequentPushesEnabled: Bool = false,
        environmentSource: PushEnvironmentSource = .app, contractFingerprint: String? = nil,
        widgetKinds: [String]? = nil, activityID: String? = nil
    ) {
        self.activityID = activityID
        self.widgetKinds = widgetKinds.map { Array(Set($0)).sorted() }
        self.environmentSource = environmentSource
        self.contractFingerprint = contractFingerprint
        self.householdID = householdID
        self.userID = userID
        self.deviceID = deviceID
        self.kind = kind
        self.environment = environment
        self.token = token
        self.attributesType = attributesType
        self.contextKey = contextKey
        self.frequentPushesEnabled = frequentPushesEnabled
    }

    /// The key this token is registered under inside its household, environment and kind
    /// (`docs/engine.md`, "Push tokens", the "keyed by" column):
    ///
    /// | kind | slot |
    /// | --- | --- |
    /// | `alert`, `widgets` | `device:<deviceID>` |
    /// | `la-pushToStart` | `device:<deviceID>\|type:<attributesType>` |
    /// | `la-update` | `device:<deviceID>\|context:<contextKey>` |
    /// | `web-push` | `endpoint:<endpoint>`, the endpoint read from the subscription JSON in `token` |
    ///
    /// `%` and `|` inside the parts are written `%25` and `%7C`, so no two keys share a slot.
    /// Throws `.invalidArgument` when `la-pushToStart` lacks `attributesType`, `la-update` lacks
    /// `contextKey`, or a `web-push` token is not a subscription.
    public var slot: String {
        get throws {
            let device = "device:" + Self.escape(deviceID)
            switch kind {
            case .alert, .widgets:
                return device
            case .pushToStart:
                guard let attributesType else {
                    throw StoreError(.invalidArgument, "a la-pushToStart token needs its attributes type")
                }
                return device + "|type:" + Self.escape(attributesType)
            case .update:
                guard let contextKey else {
                    throw StoreError(.invalidArgument, "a la-update token needs its context key")
                }
                return device + "|context:" + Self.escape(contextKey)
            case .webPush:
                guard let subscription = try? JSONDecoder().decode(WebPushSubscription.self, fromUntrusted: Data(token.utf8)) else {
                    throw StoreError(.invalidArgument, "a web-push token must be a subscription {endpoint, keys: {p256dh, auth}}")
                }
                return "endpoint:" + Self.escape(subscription.endpoint)
            }
        }
    }

    private static func escape(_ part: String) -> String {
        part.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "|", with: "%7C")
    }
}
