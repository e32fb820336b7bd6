import Foundation
import LivelineModel
import Testing

struct DecodingProblemTests {
    /// Foundation's own words, which no problem may pass on.
    static let foundationPhrases = [
        "Cannot initialize", "Expected to decode", "No value associated", "but found", "debugDescription", "Debug description",
        "ISO8601", "not valid JSON.", "Dictionary<", "Array<", "Swift.", "PushTokenKind", "PushEnvironment", "Int.Type", "CodingKeys",
    ]

    struct Registration: Decodable {
        var kind: PushTokenKind
        var environment: PushEnvironment?
        var rev: Int?
        var when: Date?
    }

    /// The problem of decoding `json` as `T` with the API's decoder.
    static func problem<T: Decodable>(_ type: T.Type, _ json: String) throws -> DecodingProblem {
        do {
            _ = try APICoding.makeDecoder().decode(T.self, from: Data(json.utf8))
        } catch let error as DecodingError {
            let problem = DecodingProblem(error, in: Data(json.utf8))
            for phrase in foundationPhrases { #expect(!problem.description.contains(phrase), "\(json): \(problem.description)") }
            return problem
        }
        Issue.record("\(json) decoded as \(T.self)")
        throw DecodedAnyway()
    }

    struct DecodedAnyway: Error {}

    struct Basket: Decodable {
        struct Item: Decodable {
            var id: Int
            var label: String
        }
        var open: Int
        var nextOpen: [Item]
    }

    @Test func namesTheKeyPathWithArrayIndexes() throws {
        let json = #"{"open":1,"nextOpen":[{"id":1,"label":"a"},{"id":2}]}"#
        let problem = try Self.problem(Basket.self, json)
        #expect(problem.keyPath == "nextOpen[1].label")
        #expect(problem.path == [.key("nextOpen"), .index(1), .key("label")])
        #expect(problem.kind == .missing)
        #expect(problem.reason == "is missing")
        #expect(problem.message(expecting: "a string") == "nextOpen[1].label is required: a string")
    }

    @Test func anEnumOfTheAPISaysWhichValuesThereAre() throws {
        let kinds = "one of alert, la-pushToStart, la-update, web-push, widgets"
        #expect(PushTokenKind.expectation == kinds)
        #expect(try Self.problem(Registration.self, #"{"kind":"complication"}"#).description == "kind must be \(kinds), not 'complication'")
        #expect(try Self.problem(Registration.self, #"{"kind":5}"#).description == "kind must be \(kinds), not 5")
        #expect(try Self.problem(Registration.self, #"{"kind":null}"#).description == "kind must be \(kinds), not null")
        #expect(try Self.problem(Registration.self, #"{"kind":{"a":1}}"#).description == "kind must be \(kinds), not an object")
        #expect(
            try Self.problem(Registration.self, #"{"kind":"alert","environment":"staging"}"#).description
                == "environment must be one of sandbox, production, not 'staging'")
        // It reads and writes exactly the raw values.
        #expect(try APICoding.makeDecoder().decode([PushTokenKind].self, from: Data(#"["la-update","web-push"]"#.utf8)) == [.update, .webPush])
        #expect(String(decoding: try JSONEncoder().encode([PushTokenKind.pushToStart]), as: UTF8.self) == #"["la-pushToStart"]"#)
    }

    @Test func aWrongTypeSaysWhatItMustBeAndWhatCame() throws {
        #expect(try Self.problem(Registration.self, #"{"kind":"alert","rev":"seven"}"#).description == "rev must be a whole number, not 'seven'")
        #expect(try Self.problem(Registration.self, #"{"kind":"alert","rev":[1]}"#).description == "rev must be a whole number, not an array")
        #expect(try Self.problem(Registration.self, #"[1]"#).description == "the document must be an object, not an array")
        #expect(try Self.problem([Int].self, #"{"a":1}"#).description == "the document must be an array, not an object")
    }

    @Test func aValueFoundationDoesNotPlaceIsNotCalledInvalidJSON() throws {
        // A fraction or a number beyond 64 bits where an Int is, a string that is no date: Foundation
        // throws at the top, with no key (a documented schema finds it: RequestSchemaTests).
        for json in [#"{"kind":"alert","rev":1.5}"#, #"{"kind":"alert","rev":1e19}"#, #"{"kind":"alert","when":"yesterday"}"#] {
            let problem = try Self.problem(Registration.self, json)
            #expect(problem.kind == .unplaced && problem.path.isEmpty, "\(json)")
            #expect(problem.message(expecting: "an object").hasPrefix("the document holds a value its field cannot take"), "\(json)")
        }
    }

    @Test func textThatIsNotJSONSaysSo() throws {
        let problem = try Self.problem(Registration.self, #"{"kind":"#)
        #expect(problem.kind == .notJSON)
        #expect(problem.message(expecting: "an object", document: "the body") == "the body is not valid JSON (UTF-8)")
    }
}
