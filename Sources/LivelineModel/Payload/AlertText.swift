/// The text of an alert's title or body: plain, or a localization key with arguments that the
/// phone looks up in the app's `Localizable.strings`.
///
/// Wire format in a Live Activity `alert`: a string, or `{"loc-key": "…", "loc-args": ["…"]}`.
/// Related APNs documentation: "Starting and updating Live Activities with ActivityKit push
/// notifications" (the title of the update example is such an object).
public enum AlertText: Codable, Hashable, Sendable {
    case plain(String)
    case localized(key: String, arguments: [String])

    private enum CodingKeys: String, CodingKey {
        case key = "loc-key"
        case arguments = "loc-args"
    }

    public init(from decoder: any Decoder) throws {
        if let text = try? decoder.singleValueContainer().decode(String.self) {
            self = .plain(text)
            return
        }
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self = .localized(
            key: try c.decode(String.self, forKey: .key),
            arguments: try c.decodeIfPresent([String].self, forKey: .arguments) ?? []
        )
    }

    public func encode(to encoder: any Encoder) throws {
        switch self {
        case .plain(let text):
            var c = encoder.singleValueContainer()
            try c.encode(text)
        case .localized(let key, let arguments):
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(key, forKey: .key)
            if !arguments.isEmpty { try c.encode(arguments, forKey: .arguments) }
        }
    }
}

extension AlertText: ExpressibleByStringLiteral {
    public init(stringLiteral value: String) { self = .plain(value) }
}
