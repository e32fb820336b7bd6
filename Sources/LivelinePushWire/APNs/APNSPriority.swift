/// The `apns-priority` header.
///
/// Related APNs documentation: "Sending notification requests to APNs" — 10 sends at once and
/// draws on a Live Activity's hourly budget, 5 considers the device's power, 1 never wakes it.
/// Live Activities accept only 5 and 10.
public struct APNSPriority: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }

    public static let immediate = APNSPriority(rawValue: 10)
    public static let considerPower = APNSPriority(rawValue: 5)
    public static let low = APNSPriority(rawValue: 1)

    public var description: String { String(rawValue) }
}
