import Foundation
import LivelineAPI
import LivelineWebPush

/// The input fields of the notification routes, declared once (``FieldRule``).
enum NotificationFields {
    static let id = CommonFields.rowID(about: "a notification's id")
    static let title = FieldRule("title", .text(length: 1...200, nonBlank: true), about: "the notification's title")
    static let body = FieldRule("body", .text(length: 0...1000), about: "its text")
    static let dedupeKey = FieldRule("dedupeKey", .text(length: 1...200), about: "the key that makes it once per user")
    static let link = FieldRule(
        "link",
        .text(
            length: 1...2000,
            format: TextFormat(
                name: "url-with-scheme", pattern: "^[A-Za-z][A-Za-z0-9+.-]*:", about: "a URL with a scheme, e.g. liveline://shopping/2026-01-05",
                isValid: { URL(string: $0)?.scheme != nil })), about: "what opening it shows")
    static let icon = FieldRule("icon", .text(length: 1...64), about: "an icon name or emoji")
    static let ttl = FieldRule("ttl", .integer(0...2_419_200), about: "seconds a push service keeps it (28 days at most)")
    static let urgency = FieldRule("urgency", .oneOf(WebPushMessage.urgencies.sorted()), about: "the web push's urgency")
    static let topic = FieldRule(
        "topic", .text(length: 1...32, characters: .alphanumerics(and: "_-")), about: "a web push topic (RFC 8030)")
}
