import Foundation
import LivelineModel

/// What a simulated iPhone is (`docs/devices.md`): who uses it, which iOS, what the user allowed, which
/// Live Activity types the app has. Also one entry of the `liveline sandbox --devices FILE` file.
public struct DeviceConfiguration: Sendable, Hashable, Codable {
    /// The device id the app registers its tokens with.
    public var id: String
    public var userID: Int
    public var householdID: Int
    public var environment: PushEnvironment
    public var os: OSVersion
    /// The user tapped "Allow" for the app's Live Activities (until then a push-started activity
    /// mints no update token).
    public var liveActivitiesAllowed: Bool
    /// "More frequent updates" allowed in Settings (a larger priority-10 budget).
    public var frequentUpdatesAllowed: Bool
    /// The app's `ActivityAttributes` types (push-to-start tokens exist for these); nil: every
    /// type of the device's registry.
    public var activityTypes: [String]?
    /// The widgets the user placed, one per kind; on iOS 26 and later the widget extension gets a
    /// push token for them (`docs/devices.md`, "Widgets").
    public var widgets: [DeviceWidget]

    public init(
        id: String, userID: Int, householdID: Int, environment: PushEnvironment = .sandbox, os: OSVersion = OSVersion(18, 0),
        liveActivitiesAllowed: Bool = true, frequentUpdatesAllowed: Bool = false, activityTypes: [String]? = nil,
        widgets: [DeviceWidget] = []
    ) {
        self.id = id
        self.userID = userID
        self.householdID = householdID
        self.environment = environment
        self.os = os
        self.liveActivitiesAllowed = liveActivitiesAllowed
        self.frequentUpdatesAllowed = frequentUpdatesAllowed
        self.activityTypes = activityTypes
        self.widgets = widgets
    }

    /// Decodes a configuration written before widgets existed too (no `widgets`: none).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try c.decode(String.self, forKey: .id), userID: try c.decode(Int.self, forKey: .userID),
            householdID: try c.decode(Int.self, forKey: .householdID), environment: try c.decode(PushEnvironment.self, forKey: .environment),
            os: try c.decode(OSVersion.self, forKey: .os), liveActivitiesAllowed: try c.decode(Bool.self, forKey: .liveActivitiesAllowed),
            frequentUpdatesAllowed: try c.decode(Bool.self, forKey: .frequentUpdatesAllowed),
            activityTypes: try c.decodeIfPresent([String].self, forKey: .activityTypes),
            widgets: try c.decodeIfPresent([DeviceWidget].self, forKey: .widgets) ?? []
        )
    }
}

/// The server's context key of an activity, from its attributes and the device's user. By
/// default each contract's own rule (``LiveActivityContract/contextKey(of:userID:householdID:)``);
/// replaceable for apps that key their contexts otherwise.
public typealias ContextKeyResolver = @Sendable (_ attributesType: String, _ attributes: JSONValue, _ device: DeviceConfiguration) -> String?

public enum ContextKeys {
    /// Each contract's own rule, from `registry`.
    public static func contracts(_ registry: ContractRegistry) -> ContextKeyResolver {
        { type, attributes, device in
            registry.contract(named: type)?.contextKey(
                attributes: attributes.compactJSON, userID: device.userID, householdID: device.householdID)
        }
    }
}
