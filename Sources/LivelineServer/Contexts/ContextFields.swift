import Foundation
import LivelineAPI

/// The input fields of the `/v1/contexts` routes, declared once (``FieldRule``).
enum ContextFields {
    /// `limit` of a timeline.
    static let timelineLimit = CommonFields.limit(1...1000)
    /// `relevanceScore` of a put.
    static let relevanceScore = FieldRule("relevanceScore", .number(0...Double.greatestFiniteMagnitude), about: "the activity's relevance")
    /// Users, and devices, of one start (each list at most this many).
    static let startTargets = 0...1000
}
