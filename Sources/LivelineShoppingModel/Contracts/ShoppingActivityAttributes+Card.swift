import Foundation
import LivelineModel

extension ShoppingActivityAttributes {
    /// The card: the week, what is open and done, what is next, who is in the shop.
    public static func card(_ attributes: ShoppingActivityAttributes, _ state: ContentState, badge: String) -> RenderedCard {
        let next = state.nextOpen.map(\.label).joined(separator: ", ")
        let shoppers = state.activeShoppers.map(\.name).joined(separator: ", ")
        var lines = [
            "🛒 Week of \(attributes.week)\(badge)",
            "\(state.open) open · \(state.done) done of \(state.total) · ~\(String(format: "%.2f", state.estEur)) €",
        ]
        if !next.isEmpty { lines.append("next: \(next)") }
        if let story = state.lastEventText { lines.append(story) }
        if !shoppers.isEmpty { lines.append("in the shop: \(shoppers)") }
        return RenderedCard(
            lockScreen: lines.joined(separator: "\n"), compactLeading: "🛒 \(state.open)", compactTrailing: "\(state.done)/\(state.total)",
            expanded: (["\(state.open) open, \(state.done) done"] + state.nextOpen.map { "☐ \($0.label)" }).joined(separator: "\n")
        )
    }
}
