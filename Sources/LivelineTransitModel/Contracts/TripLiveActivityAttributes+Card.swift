import Foundation
import LivelineModel

extension TripLiveActivityAttributes {
    /// The card: the line, where the ride stands, the delay.
    public static func card(_ attributes: TripLiveActivityAttributes, _ state: ContentState, badge: String) -> RenderedCard {
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
}
