import Foundation
import LivelineModel

/// One row of the push token registry, active or ended (history).
public struct PushTokenRecord: Sendable, Hashable {
    public var id: PushTokenID
    public var householdID: HouseholdID
    public var userID: UserID
    public var deviceID: String
    public var kind: PushTokenKind
    public var environment: PushEnvironment
    public var attributesType: String?
    public var contextKey: String?
    /// See ``TokenRegistration/slot``.
    public var slot: String
    public var token: String
    public var status: PushTokenStatus
    public var frequentPushesEnabled: Bool
    public var firstRegisteredAt: Date
    public var lastRegisteredAt: Date
    public var endedAt: Date?
    /// `replaced`, `moved` (registered again in another slot), `unregistered`, or the APNs reason
    /// for `invalid`.
    public var endReason: String?
    /// Set on a push-to-start token whose accepted start was not followed by an `la-update`
    /// token in time (`docs/painpoints.md` §2): APNs may answer 200 to a token the phone dropped.
    public var suspectAt: Date?
    /// Where `environment` came from.
    public var environmentSource: PushEnvironmentSource
    /// The fingerprint of the contract the app's build was compiled with, when it said.
    public var contractFingerprint: String?
    /// The kinds of the widgets a `widgets` token serves (``TokenRegistration/widgetKinds``).
    public var widgetKinds: [String]?
    /// The activity an `la-update` token belongs to (``TokenRegistration/activityID``).
    public var activityID: String?

    public init(
        id: PushTokenID, householdID: HouseholdID, userID: UserID, deviceID: String, kind: PushTokenKind, environment: PushEnvironment,
        attributesType: String?, contextKey: String?, slot: String, token: String, status: PushTokenStatus,
        frequentPushesEnabled: Bool, firstRegisteredAt: Date, lastRegisteredAt: Date, endedAt: Date?, endReason: String?,
        suspectAt: Date? = nil, environmentSource: PushEnvironmentSource = .app, contractFingerprint: String? = nil,
        widgetKinds: [String]? = nil, activityID: String? = nil
    ) {
        self.activityID = activityID
        self.widgetKinds = widgetKinds
        self.environmentSource = environmentSource
        self.contractFingerprint = contractFingerprint
        self.id = id
        self.householdID = householdID
        self.userID = userID
        self.deviceID = deviceID
        self.kind = kind
        self.environment = environment
        self.attributesType = attributesType
        self.contextKey = contextKey
        self.slot = slot
        self.token = token
        self.status = status
        self.frequentPushesEnabled = frequentPushesEnabled
        self.firstRegisteredAt = firstRegisteredAt
        self.lastRegisteredAt = lastRegisteredAt
        self.endedAt = endedAt
        self.endReason = endReason
        self.suspectAt = suspectAt
    }

    /// The columns ``init(row:)`` reads.
    static let columns = """
        id, household_id, user_id, device_id, kind, environment, attributes_type, context_key, slot, token, status, \
        frequent_pushes_enabled, first_registered_at, last_registered_at, ended_at, end_reason, suspect_at, environment_source, \
        contract_fingerprint, widget_kinds, activity_id
        """

    init(row: Row) throws {
        // Unknown values are reported by column, never with the token.
        guard let kind = PushTokenKind(rawValue: try row.string("kind")) else {
            throw StoreError(.column, "push_tokens.kind holds an unknown kind")
        }
        guard let environment = PushEnvironment(rawValue: try row.string("environment")) else {
            throw StoreError(.column, "push_tokens.environment holds an unknown environment")
        }
        guard let status = PushTokenStatus(rawValue: try row.string("status")) else {
            throw StoreError(.column, "push_tokens.status holds an unknown status")
        }
        self.init(
            id: PushTokenID(try row.int("id")), householdID: HouseholdID(try row.int("household_id")), userID: UserID(try row.int("user_id")),
            deviceID: try row.string("device_id"), kind: kind, environment: environment,
            attributesType: try row.optionalString("attributes_type"), contextKey: try row.optionalString("context_key"),
            slot: try row.string("slot"), token: try row.string("token"), status: status,
            frequentPushesEnabled: try row.bool("frequent_pushes_enabled"),
            firstRegisteredAt: try row.date("first_registered_at"), lastRegisteredAt: try row.date("last_registered_at"),
            endedAt: try row.optionalDate("ended_at"), endReason: try row.optionalString("end_reason"),
            suspectAt: try row.optionalDate("suspect_at"),
            environmentSource: PushEnvironmentSource(rawValue: try row.string("environment_source")) ?? .app,
            contractFingerprint: try row.optionalString("contract_fingerprint"),
            widgetKinds: try row.optionalString("widget_kinds").map(Self.widgetKinds(json:)),
            activityID: try row.optionalString("activity_id")
        )
    }

    /// The `widget_kinds` column's JSON array as strings (an unreadable one as none).
    static func widgetKinds(json: String) -> [String] {
        (try? JSONDecoder().decode([String].self, from: Data(json.utf8))) ?? []
    }

    /// `kinds` as the `widget_kinds` column holds them.
    static func widgetKindsJSON(_ kinds: [String]?) -> String? {
        kinds.flatMap { try? JSONEncoder().encode($0) }.map { String(decoding: $0, as: UTF8.self) }
    }
}
