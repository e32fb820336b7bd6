import Foundation
import LivelineAPI
import LivelineHTTP
import LivelineModel
import LivelineTestSupport
import Testing

/// A ``FieldRule``'s check and the schema it prints agree: each sample is checked by the rule and
/// validated against the printed schema by an independent validator (jsonschema-rs, the one
/// schemathesis validates with, in the test virtualenv), and the two verdicts must be the same.
@Suite struct FieldRuleTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    static let rules: [(FieldRule, [String])] = [
        (
            CommonFields.contextKey,
            ["trip:42", "a", String(repeating: "k", count: 200), String(repeating: "k", count: 201), "", "trip 42", "trip/42", "ä", "a@b.c_d-e:f"]
        ),
        (
            FieldRule("label", .text(length: 1...5, nonBlank: true)),
            [
                "x", " x ", " ", "x\u{0}", "\u{0}", " \u{0}", "\u{3000}", "\u{85}", "\u{FEFF}", "\u{200B}", "\t\n", "abcde", "abcdef", "",
                "e\u{301}e\u{301}e",
            ]
        ),
        (
            CommonFields.publicID(prefix: "tr_", about: "a ride's id"),
            ["tr_", "tr_abc123", "tr_ab-c", "cs_abc", "TR_abc", "tr_" + String(repeating: "a", count: 61), "tr_" + String(repeating: "a", count: 62)]
        ),
        (
            FieldRule("topic", .text(length: 1...32, characters: .alphanumerics(and: "_-"))),
            ["a-b_c", "a b", "a^b", "a\\b", "a]b", String(repeating: "z", count: 33), ""]
        ),
        (CommonFields.visible("device_id", 1...4, about: "x"), ["a\u{0}", "abcd", "ab cd", "a\u{7f}", "äöü", "abcde", "\u{1F41F}"]),
        (FieldRule("urgency", .oneOf(["low", "high"])), ["low", "high", "LOW", ""]),
        (FieldRule("body", .text(length: 0...3)), ["", "abc", "a\u{0}", "abcd"]),
    ]

    @Test func theCheckAndThePrintedSchemaAgreeOnEverySample() throws {
        let python = Self.root.appendingPathComponent(".venv/bin/python")
        try #require(
            FileManager.default.isExecutableFile(atPath: python.path), "run scripts/test-venv.sh (creates .venv with schemathesis and jsonschema-rs)")
        var cases: [JSONValue] = []
        var verdicts: [Bool] = []
        for (rule, samples) in Self.rules {
            for sample in samples {
                cases.append(["schema": rule.schema, "value": .string(sample)])
                verdicts.append(rule.accepts(sample))
            }
        }
        for (rule, values) in [(CommonFields.sinceRev, [0, -1, Int(Int32.max), Int(Int32.max) + 1]), (CommonFields.userID, [0, 1, Int.max])] {
            for value in values {
                cases.append(["schema": rule.schema, "value": .int(value)])
                verdicts.append((try? rule.integer(value)) != nil)
            }
        }
        let script = """
            import json, sys, jsonschema_rs
            cases = json.load(sys.stdin)
            print(json.dumps([jsonschema_rs.Draft202012Validator(c["schema"]).is_valid(c["value"]) for c in cases]))
            """
        let result = try ChildProcess.run(python.path, ["-c", script], input: JSONValue.array(cases).compactJSON)
        #expect(result.termination == .exited(0), "\(String(decoding: result.errors, as: UTF8.self))")
        let theirs = try #require(try JSONSerialization.jsonObject(with: result.output) as? [Bool])
        #expect(theirs.count == verdicts.count)
        for (index, (ours, schema)) in zip(verdicts, theirs).enumerated() {
            #expect(ours == schema, "\(String(decoding: cases[index].compactJSON, as: UTF8.self)): the rule says \(ours), the schema \(schema)")
        }
        #expect(verdicts.contains(true) && verdicts.contains(false))
    }

    @Test func aWholeNumberMayBeWrittenAsAJSONNumber() {
        #expect(FieldRule.wholeNumber("1.0") == 1 && FieldRule.wholeNumber("1e+3") == 1000 && FieldRule.wholeNumber("-2.00") == -2)
        for text in ["1.5", "0x10", "1.", ".5", "inf", "nan", "1e400", "", " 1", "١"] { #expect(FieldRule.wholeNumber(text) == nil, "\(text)") }
    }

    @Test func aRefusalIsA400NamingTheFieldAndWhatItMustBe() throws {
        do {
            _ = try CommonFields.sinceRev.integer(text: "x")
            Issue.record("x is no revision")
        } catch let error as HTTPError {
            #expect(error.status == 400 && error.field == "since_rev")
            #expect(error.message == "since_rev must be the revision the caller has: a whole number from 0 to 2147483647, not 'x'")
        }
    }
}
