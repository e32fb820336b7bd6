import Foundation
import LivelineAPI
import LivelineModel
import LivelineTesting
import Testing

/// A documented body's schema read as words (``RequestSchema``), and what the server answers with
/// them for the failures Foundation names no key for.
@Suite struct RequestSchemaTests {
    static let schemas: [String: JSONValue] = [
        "Body": [
            "oneOf": [
                [
                    "type": "object", "required": ["kind", "rev"],
                    "properties": [
                        "kind": ["type": "string", "enum": ["alert"]], "rev": ["type": "integer", "minimum": 0, "maximum": 9],
                        "when": ["anyOf": [["type": "string", "format": "date-time"], ["type": "null"]]],
                        "tags": ["type": "array", "items": ["type": "string", "enum": ["a", "b"]]],
                    ],
                ],
                [
                    "type": "object", "required": ["kind", "token"],
                    "properties": [
                        "kind": ["type": "string", "enum": ["web-push"]], "token": ["$ref": "#/components/schemas/Token"],
                        "price": ["type": "number", "description": "euros: a number from 0 to 100"],
                    ],
                ],
            ]
        ],
        "Token": ["type": "object", "required": ["endpoint", "keys"], "properties": ["endpoint": ["type": "string"]]],
    ]
    static let body = RequestSchema(named: "Body", schemas: { schemas })

    @Test func aKeyIsDescribedByEveryAlternativeThatHasIt() {
        #expect(Self.body.expectation(at: []) == "an object with kind and rev or an object with kind and token")
        #expect(Self.body.expectation(at: [.key("kind")]) == "one of alert, web-push")
        #expect(Self.body.expectation(at: [.key("rev")]) == "a whole number from 0 to 9")
        #expect(Self.body.expectation(at: [.key("token")]) == "an object with endpoint and keys")
        #expect(Self.body.expectation(at: [.key("token"), .key("endpoint")]) == "a string")
        #expect(Self.body.expectation(at: [.key("price")]) == "euros: a number from 0 to 100")
        // A left-out optional field is not offered as null.
        #expect(Self.body.expectation(at: [.key("when")]) == "a date and time as in RFC 3339, e.g. 2026-01-05T08:00:00Z")
        #expect(Self.body.expectation(at: [.key("tags")]) == "an array, each element one of a, b")
        #expect(Self.body.expectation(at: [.key("tags"), .index(3)]) == "one of a, b")
        #expect(Self.body.expectation(at: [.key("nothing")]) == nil)
    }

    @Test func theValueFoundationDidNotPlaceIsFoundByTheSchema() throws {
        func unfit(_ json: String) throws -> String? {
            try Self.body.firstUnfitValue(in: JSONValue(json: Data(json.utf8))).map { DecodingProblem(path: $0, kind: .invalid).keyPath }
        }
        // A fraction where a whole number is expected; not one where any number is.
        #expect(try unfit(#"{"kind":"alert","price":1.5,"rev":2.5}"#) == "rev")
        #expect(try unfit(#"{"kind":"alert","rev":1e19}"#) == "rev")
        #expect(try unfit(#"{"kind":"alert","rev":2,"when":"yesterday"}"#) == "when")
        #expect(try unfit(#"{"kind":"alert","rev":2,"when":"2026-01-05T08:00:00Z","price":1.5}"#) == nil)
    }

    @Test func theServerNamesTheFieldFoundationDidNot() throws {
        let server = try TestServer()
        defer { server.stop() }
        let (_, bearer) = try server.addUser(household: "Fisch", name: "Dennis")
        for (json, expected) in [
            (#"{"context_key":"trip:1","rev":1.5}"#, "rev must be the revision the device rendered: a whole number from 0 to 2147483647, not 1.5"),
            (
                #"{"context_key":"trip:1","rev":1e300}"#,
                "rev must be the revision the device rendered: a whole number from 0 to 2147483647, not 1e+300"
            ),
            (#"{"context_key":"trip:1","rev":"#, "the body is not valid JSON (UTF-8)"),
        ] {
            let response = try server.request("POST", "/api/la/receipts", token: bearer, json: json)
            let error = response.json?["error"] as? [String: Any]
            #expect(response.status == 400 && error?["message"] as? String == expected, "\(json): \(response.text)")
            #expect(error?["field"] as? String == (expected.hasPrefix("rev") ? "rev" : "body"), "\(json): \(response.text)")
        }
        // A kind no token has: its values, not Swift's "Cannot initialize PushTokenKind".
        let kind = try server.request(
            "POST", "/api/apns/register", token: bearer, json: #"{"kind":"complication","token":"aabbccddeeff00112233445566778899"}"#)
        #expect(kind.status == 400, "\(kind.text)")
        #expect(
            (kind.json?["error"] as? [String: Any])?["message"] as? String
                == "kind must be one of alert, la-update, la-pushToStart, web-push, widgets, not 'complication'",
            "\(kind.text)")
    }
}
