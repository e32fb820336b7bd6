import Foundation
import LivelineModel

/// A card as the phone shows it (`docs/devices.md`, "Rendering"), as text: the lock screen and the
/// Dynamic Island, compact and expanded.
public struct RenderedCard: Sendable, Hashable, CustomStringConvertible {
    public var lockScreen: String
    public var compactLeading: String
    public var compactTrailing: String
    public var expanded: String

    public init(lockScreen: String, compactLeading: String, compactTrailing: String, expanded: String) {
        self.lockScreen = lockScreen
        self.compactLeading = compactLeading
        self.compactTrailing = compactTrailing
        self.expanded = expanded
    }

    public var description: String {
        "[lock screen]\n\(lockScreen)\n[island] \(compactLeading) · \(compactTrailing)\n[expanded]\n\(expanded)"
    }
}

/// How a card stands, for its badge.
public enum CardPhase: Sendable, Hashable {
    case active, stale, ended
}

/// Renders each contract's card from its attributes and content state (the widget's view, in
/// text): what the simulated iPhones log and the dashboard draws.
public enum CardRenderer {
    /// The card of an activity of `attributesType`, or nil when the type is unknown or its JSON
    /// does not decode (the card would not render at all).
    public static func render(attributesType: String, attributes: Data, contentState: Data, phase: CardPhase = .active) -> RenderedCard? {
        let decoder = JSONDecoder()
        let badge =
            switch phase {
            case .stale: " (out of date)"
            case .ended: " (ended)"
            case .active: ""
            }
        switch attributesType {
        case ShoppingActivityAttributes.typeName:
            guard let attributes = try? decoder.decode(ShoppingActivityAttributes.self, from: attributes),
                let state = try? decoder.decode(ShoppingActivityAttributes.ContentState.self, from: contentState)
            else { return nil }
            return shopping(attributes, state, badge: badge)
        case TripLiveActivityAttributes.typeName:
            guard let attributes = try? decoder.decode(TripLiveActivityAttributes.self, from: attributes),
                let state = try? decoder.decode(TripLiveActivityAttributes.ContentState.self, from: contentState)
            else { return nil }
            return trip(attributes, state, badge: badge)
        case CookSuggestActivityAttributes.typeName:
            guard let attributes = try? decoder.decode(CookSuggestActivityAttributes.self, from: attributes),
                let state = try? decoder.decode(CookSuggestActivityAttributes.ContentState.self, from: contentState)
            else { return nil }
            return cookSuggest(attributes, state, badge: badge)
        default:
            return nil
        }
    }

    static func shopping(_ attributes: ShoppingActivityAttributes, _ state: ShoppingActivityAttributes.ContentState, badge: String) -> RenderedCard {
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

    static func trip(_ attributes: TripLiveActivityAttributes, _ state: TripLiveActivityAttributes.ContentState, badge: String) -> RenderedCard {
        let minutes = Int((state.remainingTime / 60).rounded())
        let delay = state.delay == 0 ? "on time" : state.delay > 0 ? "+\(state.delay) min" : "\(state.delay) min"
        let phase =
            switch state.phase {
            case .beforeDeparture: "boarding at \(state.currentStop)"
            case .inProgress: "next \(state.nextStop) in \(minutes) min"
            case .arrived: "arrived at \(attributes.destination)"
            }
        return RenderedCard(
            lockScreen: "🚆 \(attributes.line) → \(attributes.destination)\(badge)\n\(phase) · \(delay) · \(Int(state.progress * 100)) %",
            compactLeading: "🚆 \(attributes.line)", compactTrailing: state.phase == .arrived ? "✓" : "\(minutes) min",
            expanded: "\(state.currentStop) → \(state.nextStop)\n\(delay), \(state.occupancy.rawValue) occupancy"
        )
    }

    static func cookSuggest(
        _ attributes: CookSuggestActivityAttributes, _ state: CookSuggestActivityAttributes.ContentState, badge: String
    ) -> RenderedCard {
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
