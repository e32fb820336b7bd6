import LivelineAPI
import LivelineModel
import LivelinePushWire

/// The input fields of the notification routes, declared once (``FieldRule``).
enum NotificationFields {
    static let id = CommonFields.rowID(about: "a notification's id")
    static let title = FieldRule("title", .text(length: 1...200, nonBlank: true), about: "the notification's title")
    static let body = FieldRule("body", .text(length: 0...1000), about: "its text")
    static let dedupeKey = FieldRule("dedupeKey", .text(length: 1...200), about: "the key that makes it once per user")
    /// The deep link: an app path (``DeepLink``), the form the server's own notifications send.
    static let link = FieldRule(
        "link", .text(length: 1...2000, format: TextFormat(pattern: DeepLink.pattern, about: DeepLink.rule)), about: "the deep link")
    static let icon = FieldRule("icon", .text(length: 1...64), about: "an icon name or emoji")
    static let ttl = FieldRule("ttl", .integer(0...2_419_200), about: "seconds a push service keeps it (28 days at most)")
    static let urgency = FieldRule("urgency", .oneOf(WebPushMessage.urgencies.sorted()), about: "the web push's urgency")
    static let topic = FieldRule(
        "topic", .text(length: 1...32, characters: .alphanumerics(and: "_-")), about: "a web push topic (RFC 8030)")
}
