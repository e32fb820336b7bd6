import Foundation
import LivelineModel

extension CookSuggestActivityAttributes {
    /// The card: the session, the proposals, the partner's pick and the dish decided.
    public static func card(_ attributes: CookSuggestActivityAttributes, _ state: ContentState, badge: String) -> RenderedCard {
        let partner = attributes.partnerName ?? "your partner"
        var lines = [
            "🍳 \(state.statusLabel)\(badge)", "\(state.proposalCount) proposals · \(partner) \(state.partnerReady ? "is ready" : "is choosing")",
        ]
        if let pick = state.partnerPickTitle { lines.append("\(partner) picked: \(pick)") }
        if let decided = state.decidedTitle { lines.append("decided: \(decided)") }
        return RenderedCard(
            lockScreen: lines.joined(separator: "\n"), compactLeading: "🍳", compactTrailing: state.decidedTitle ?? "\(state.proposalCount)",
            expanded: lines.dropFirst().joined(separator: "\n")
        )
    }
}
