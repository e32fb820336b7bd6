import LivelineModel

/// What a route's JSON body holds, in words, by key path — the route's documented request schema
/// (`RequestSchema` of LivelineAPI, made from the declarations `/openapi.json` prints) — so a body
/// that does not decode is refused saying what the field must be (``HTTPRequest/decode(_:)``).
public protocol BodyDescription: Sendable {
    /// What a valid value at `path` is ("one of alert, web-push", "a whole number from 1 to 9");
    /// nil where the description does not reach.
    func expectation(at path: [DecodingProblem.Step]) -> String?

    /// Where in `document` the first value is that decoding cannot take although its JSON type is
    /// right — a number with a fraction or beyond 64 bits where a whole number is expected, a
    /// string that is no date where a date is — for the errors Foundation raises without a key
    /// path (``DecodingProblem/Kind/unplaced``); nil when there is none.
    func firstUnfitValue(in document: JSONValue) -> [DecodingProblem.Step]?
}
