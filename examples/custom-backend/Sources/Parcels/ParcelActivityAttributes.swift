import Foundation
import LivelineModel

/// The app's own Live Activity: a parcel on its way. The app declares the same type (with
/// `ActivityAttributes`); Liveline checks every push against this one before it is sent.
public struct ParcelActivityAttributes: LiveActivityContract {
    public struct ContentState: Codable, Hashable, Sendable {
        /// Stops before the parcel's.
        public var stopsAway: Int
        /// Where the parcel is, for a person.
        public var status: String
        /// The context's revision (the engine sets it).
        public var rev: Int
    }

    /// The tracking code.
    public var code: String

    public static let typeName = "ParcelActivityAttributes"
    public static let version = 1
    public static let schema = ContractSchema(
        attributes: [ContractField("code", .string, "the tracking code")],
        contentState: [
            ContractField("stopsAway", .int, "stops before the parcel's"), ContractField("status", .string, "where the parcel is"),
            ContractField("rev", .int, "the context's revision"),
        ])
    public static let example = ParcelActivityAttributes(code: "P-1")
    public static let exampleContentState = ContentState(stopsAway: 3, status: "out for delivery", rev: 1)

    /// A parcel's context: `parcel:{code}`.
    public static func contextKey(of attributes: ParcelActivityAttributes, userID: Int, householdID: Int) -> String? {
        "parcel:\(attributes.code)"
    }

    /// The card: the code, and how far the parcel is.
    public static func card(_ attributes: ParcelActivityAttributes, _ state: ContentState, badge: String) -> RenderedCard {
        RenderedCard(
            lockScreen: "📦 \(attributes.code)\(badge)\n\(state.status) · \(state.stopsAway) stops away", compactLeading: "📦",
            compactTrailing: "\(state.stopsAway)", expanded: state.status)
    }
}
