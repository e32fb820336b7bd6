import Foundation
import LivelineModel

extension TripLiveActivityAttributes {
    /// The card: the line, where the ride stands, the delay.
    public static func card(_ attributes: TripLiveActivityAttributes, _ state: ContentState, badge: String) -> RenderedCard {
        let minutes = whole(state.remainingTime / 60)
        let delay = state.delay == 0 ? "on time" : state.delay > 0 ? "+\(state.delay) min" : "\(state.delay) min"
        let phase =
            switch state.phase {
            case .beforeDeparture: "boarding at \(state.currentStop)"
            case .inProgress: "next \(state.nextStop) in \(minutes) min"
            case .arrived: "arrived at \(attributes.destination)"
            }
        let percent = Int(min(1, max(0, state.progress)) * 100)
        return RenderedCard(
            lockScreen: "🚆 \(attributes.line) → \(attributes.destination)\(badge)\n\(phase) · \(delay) · \(percent) %",
            compactLeading: "🚆 \(attributes.line)", compactTrailing: state.phase == .arrived ? "✓" : "\(minutes) min",
            expanded: "\(state.currentStop) → \(state.nextStop)\n\(delay), \(state.occupancy.rawValue) occupancy"
        )
    }

    /// A number as a whole one for the card; any JSON number can arrive, and `Int(_:)` traps
    /// outside Int's range, so the ends are clamped.
    private static func whole(_ value: Double) -> Int {
        Int(max(-1e15, min(1e15, value.rounded())))
    }
}
