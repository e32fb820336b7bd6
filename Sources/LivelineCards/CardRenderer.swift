import Foundation
import LivelineModel

/// How a card stands, for its badge.
public enum CardPhase: Sendable, Hashable {
    case active, stale, ended
}

/// Renders a contract's card from its attributes and content state (the widget's view, in text):
/// what the simulated iPhones log and the dashboard draws. Each contract draws its own
/// (``LiveActivityContract/card(_:_:badge:)``), a plain key/value card by default.
public enum CardRenderer {
    /// The card of an activity of `attributesType`, or nil when `registry` does not know the type
    /// or its JSON does not decode (the card would not render at all).
    public static func render(
        attributesType: String, attributes: Data, contentState: Data, phase: CardPhase = .active, registry: ContractRegistry
    ) -> RenderedCard? {
        let badge =
            switch phase {
            case .stale: " (out of date)"
            case .ended: " (ended)"
            case .active: ""
            }
        return registry.contract(named: attributesType)?.card(attributes: attributes, contentState: contentState, badge: badge)
    }
}
