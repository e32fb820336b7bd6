/// The `interruption-level` of an ordinary alert push. Apple defines the values; unknown strings
/// are kept. Related APNs documentation: "Generating a remote notification"; `docs/apns.md` §1.9.
public struct InterruptionLevel: RawRepresentable, Codable, Hashable, Sendable {
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    public static let passive = InterruptionLevel(rawValue: "passive")
    public static let active = InterruptionLevel(rawValue: "active")
    public static let timeSensitive = InterruptionLevel(rawValue: "time-sensitive")
    /// Needs Apple's critical-alert entitlement.
    public static let critical = InterruptionLevel(rawValue: "critical")

    public init(from decoder: any Decoder) throws {
        self.rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }
}
