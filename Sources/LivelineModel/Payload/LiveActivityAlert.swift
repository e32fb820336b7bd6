/// The `alert` of a Live Activity push: `{title, body, sound}`. It lights up the phone and shows
/// the expanded presentation or a banner.
///
/// Required with a title on `start`, optional on `update`. Related APNs documentation: "Starting
/// and updating Live Activities with ActivityKit push notifications"; `docs/apns.md` §1.5.
public struct LiveActivityAlert: Codable, Hashable, Sendable {
    public var title: AlertText
    public var body: AlertText?
    /// A sound file of the app bundle, or `"default"`.
    public var sound: String?

    public init(title: AlertText, body: AlertText? = nil, sound: String? = nil) {
        self.title = title
        self.body = body
        self.sound = sound
    }

    // The aps dictionary omits absent keys (unlike contract optionals, which are sent as null).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(title, forKey: .title)
        try c.encodeIfPresent(body, forKey: .body)
        try c.encodeIfPresent(sound, forKey: .sound)
    }
}
