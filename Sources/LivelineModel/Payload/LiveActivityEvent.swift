/// The `event` of a Live Activity push: `start`, `update` or `end`.
///
/// Apple defines the values, so unknown strings are kept rather than refused at decoding; the
/// payload check names them. Related APNs documentation: "Starting and updating Live Activities
/// with ActivityKit push notifications" (`start` needs iOS 17.2+).
public struct LiveActivityEvent: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue }

    /// Push-to-start (iOS 17.2+): needs `attributes-type`, `attributes` and an `alert`.
    public static let start = LiveActivityEvent(rawValue: "start")
    public static let update = LiveActivityEvent(rawValue: "update")
    /// Ends the activity; may carry `dismissal-date`.
    public static let end = LiveActivityEvent(rawValue: "end")

    /// The values Apple documents.
    public static let known: [LiveActivityEvent] = [.start, .update, .end]

    public init(from decoder: any Decoder) throws {
        self.rawValue = try decoder.singleValueContainer().decode(String.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(rawValue)
    }

    public var description: String { rawValue }
}
