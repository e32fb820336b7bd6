/// An iOS version such as 17.2 or 18.0: what a device can do depends on it (`docs/devices.md`).
public struct OSVersion: Sendable, Hashable, Comparable, CustomStringConvertible, Codable {
    public var major: Int
    public var minor: Int

    public init(_ major: Int, _ minor: Int = 0) {
        self.major = major
        self.minor = minor
    }

    /// Parses "17", "17.2" or "18.0.1" (the patch is ignored); nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: ".").map { Int($0) }
        guard let first = parts.first, let major = first, parts.count <= 3, parts.allSatisfy({ $0 != nil }) else { return nil }
        self.init(major, parts.count > 1 ? parts[1]! : 0)
    }

    public static func < (lhs: OSVersion, rhs: OSVersion) -> Bool { (lhs.major, lhs.minor) < (rhs.major, rhs.minor) }

    public var description: String { "\(major).\(minor)" }

    /// Push-to-start (`docs/devices.md`: iOS 17.2+).
    public static let pushToStart = OSVersion(17, 2)
    /// Broadcast channels and `input-push-channel` (iOS 18).
    public static let channels = OSVersion(18, 0)
    /// Activities the app schedules (`Activity.request(…alertConfiguration:start:)`, the
    /// `pending` state; iOS 26).
    static let scheduledActivities = OSVersion(26, 0)
    /// WidgetKit pushes: a widget extension's push token (`WidgetPushHandler`, iOS 26; "Updating
    /// widgets with WidgetKit push notifications").
    public static let widgetPushes = OSVersion(26, 0)

    public init(from decoder: any Decoder) throws {
        let text = try decoder.singleValueContainer().decode(String.self)
        guard let version = OSVersion(text) else {
            throw DecodingError.invalidValue("an iOS version like 17.2", at: decoder.codingPath)
        }
        self = version
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
