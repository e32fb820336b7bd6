import Foundation

/// A Live Activity contract: the static attributes type and its nested `ContentState`, exactly as
/// the app's `ActivityAttributes` type declares them.
///
/// The `attributes-type` string of a start push must equal `typeName`, and every key of
/// `attributes` and `content-state` must match the Swift property names: the phone decodes them
/// with a **default** `JSONDecoder` (`docs/contracts.md`; related APNs documentation: "Starting and
/// updating Live Activities with ActivityKit push notifications").
public protocol LiveActivityContract: Codable, Hashable, Sendable {
    /// The dynamic part, sent with every `start`, `update` and `end`.
    associatedtype ContentState: Codable, Hashable, Sendable

    /// The Swift type name, sent as `attributes-type`; it must equal the app's type name exactly.
    static var typeName: String { get }
    /// The contract's version; a new version may only add optional fields (`docs/contracts.md`,
    /// "Contract rules"), and every version has a golden fixture in the tests.
    static var version: Int { get }
    /// Keys, types and optionality of the attributes and the content state, for `liveline
    /// contracts show` and for checking JSON of unknown provenance key by key.
    static var schema: ContractSchema { get }
    /// Example static attributes (the values of `docs/contracts.md`).
    static var example: Self { get }
    /// Example content state (the values of `docs/contracts.md`).
    static var exampleContentState: ContentState { get }
    /// Why the change from `old` to `new` is *material* (it goes at priority 10 while the budget
    /// lasts), or nil when it is not. Default: every change (`LiveActivityContract+Materiality`).
    static func materialChange(from old: ContentState, to new: ContentState) -> String?
    /// The card the widget draws, in text (the simulated iPhones and the dashboard show it).
    /// Default: the state's keys and values (`LiveActivityContract+Card`).
    static func card(_ attributes: Self, _ state: ContentState, badge: String) -> RenderedCard
    /// The server's context key of an activity with `attributes` on the phone of `userID` in
    /// `householdID` (`docs/contracts.md`), so the app can pull it; nil: no rule (the default).
    static func contextKey(of attributes: Self, userID: Int, householdID: Int) -> String?
}
