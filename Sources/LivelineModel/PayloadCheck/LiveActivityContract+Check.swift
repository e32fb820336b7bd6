import Foundation

extension LiveActivityContract {
    /// Checks a content state document the way the phone reads it (``AnyContract/checkContentState(json:now:)``).
    public static func checkContentState(json: Data, now: Date) -> [PayloadProblem] {
        AnyContract(self).checkContentState(json: json, now: now)
    }

    /// Checks a static attributes document the way the phone reads it (``AnyContract/checkAttributes(json:document:now:)``).
    public static func checkAttributes(json: Data, document: JSONValue? = nil, now: Date) -> [PayloadProblem] {
        AnyContract(self).checkAttributes(json: json, document: document, now: now)
    }
}
