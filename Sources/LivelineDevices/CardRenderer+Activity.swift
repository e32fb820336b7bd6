import Foundation
import LivelineCards
import LivelineModel

extension CardRenderer {
    /// The card of `activity`, or nil when its state does not decode against `registry` (it would
    /// not render at all).
    public static func render(_ activity: SimulatedActivity, registry: ContractRegistry) -> RenderedCard? {
        let phase: CardPhase =
            switch activity.state {
            case .stale: .stale
            case .ended, .dismissed: .ended
            case .active, .pending: .active
            }
        return render(
            attributesType: activity.attributesType, attributes: activity.attributes.compactJSON, contentState: activity.contentState.compactJSON,
            phase: phase, registry: registry)
    }
}
