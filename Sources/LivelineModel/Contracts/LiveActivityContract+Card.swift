import Foundation

extension LiveActivityContract {
    /// A plain card: the type's name, then each key of the state with its value, in key order.
    public static func card(_ attributes: Self, _ state: ContentState, badge: String) -> RenderedCard {
        var lines: [String] = []
        if let data = try? JSONEncoder().encode(state), let fields = (try? JSONValue(json: data))?.objectValue {
            for key in fields.keys.sorted() {
                lines.append("\(key): \(fields[key].map { String(decoding: $0.compactJSON, as: UTF8.self) } ?? "")")
            }
        }
        return RenderedCard(
            lockScreen: ([typeName + badge] + lines).joined(separator: "\n"), compactLeading: typeName, compactTrailing: "",
            expanded: lines.joined(separator: "\n"))
    }

    /// The card of these JSON documents, or nil when either does not decode (the phone would
    /// show nothing).
    public static func card(attributes: Data, contentState: Data, badge: String) -> RenderedCard? {
        let decoder = JSONDecoder()
        guard let attributes = try? decoder.decode(Self.self, from: attributes),
            let state = try? decoder.decode(ContentState.self, from: contentState)
        else { return nil }
        return card(attributes, state, badge: badge)
    }
}
