import Foundation
import LivelineAPI
import LivelineCrypto
import LivelineHTTP
import LivelineModel
import LivelinePushWire
import LivelineTestSupport
import LivelineWebPush
import Testing

@testable import LivelineServer
@testable import LivelineTransit

/// A ``FieldRule``'s check and the schema it prints agree: each sample is checked by the rule and
/// validated against the printed schema by an independent validator (jsonschema-rs, the one
/// schemathesis validates with, in the test virtualenv, asserting formats too), and the two
/// verdicts must be the same. The week's pattern has a test of its own
/// (`Tests/LivelineShoppingTests/ShoppingWeekPatternTests.swift`).
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
        (
            CommonFields.day("date", about: "a day"),
            [
                "2026-06-18", "0001-01-01", "9999-12-31", "2024-02-29", "2000-02-29", "2026-02-29", "1900-02-29", "2026-04-31", "2026-13-01",
                "0000-01-01", "2026-6-18", "2026-06-18T00:00:00Z", "2026-06-18\n", "2026/06/18", "２０２６-06-18",
            ]
        ),
        (
            TransitHandlers.after,
            [
                "0", "1781769600", "99999999999", "999999999999", "-1", "1.5", "2026-06-18T08:00:00Z", "2026-06-18t08:00:00z",
                "2026-06-18T08:00:00.123456789+05:30", "0001-01-01T00:00:00-23:59", "9999-12-31T23:59:59+23:59", "2026-06-18T08:00:00+24:00",
                "2026-06-18T23:59:60Z", "2026-06-18T08:00:00", "2026-06-18 08:00:00Z", "2026-06-18T08:00Z", "2026-02-29T08:00:00Z",
                "2026-06-18T08:00:00.Z", "2026-06-18T08:00:00\u{0}Z", "2026-06-18T08:00:00+0530", "0000-06-18T08:00:00Z",
            ]
        ),
        (
            NotificationFields.link,
            [
                "/cook-suggest/cs_abc", "/", "/shopping/2026-01-05?from=push#top", "/caf%C3%A9", "liveline://shopping/2026-01-05",
                "https://example.com/x", "//example.com/x", "cook-suggest/cs_abc", "/a b", "/a%2", "/é", "0",
            ]
        ),
        (
            TokenFields.endpoint(allowInsecure: false),
            [
                "https://fcm.googleapis.com/fcm/send/eXAmple:APA91bH-x_y", "https://updates.push.services.mozilla.com/wpush/v2/gAAAAABm",
                "https://web.push.apple.com/QGx2?x=1&y=%2F", "https://wns2-par02p.notify.windows.com/w/?token=BQYAAAB%2b", "https://a.bc",
                "https://push.example.com:8443/x", "https://push.example.com:65536/x", "https://push.example.com:0/x", "http://push.example.com/x",
                "HTTPS://push.example.com/x", "https://127.0.0.1/x", "https://[::1]/x", "https://localhost/x", "https://push.example.123/x",
                "https://-a.example.com/x", "https://a-.example.com/x", "https://a..example.com/x", "https://push.example.com/a b",
                "https://push.example.com/x#f", "https://user@push.example.com/x", "https://push.example.com/%zz", "0000000000",
            ]
        ),
        (
            TokenFields.endpoint(allowInsecure: true),
            [
                "http://127.0.0.1:2198/push/abc", "https://localhost:8443/x", "http://[::1]/x", "http://10.0.0.7/x", "https://push.example.com/x",
                "http://push.example.com/x", "http://127.0.0.1:99999/x",
            ]
        ),
        (
            TokenFields.p256dh,
            [
                "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
                "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4=",
                "BQVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
                "BCVxsr7N/eNgVRqvHtD0zTZsEc6+VV+JvLexhqUzORcxaOzi6+AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4", "AAAA", "",
                "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4==",
            ]
        ),
        (
            TokenFields.webPushAuth,
            ["CQkJCQkJCQkJCQkJCQkJCQ", "CQkJCQkJCQkJCQkJCQkJCQ==", "CQkJCQkJCQkJCQkJCQkJCQ=", "CQkJ", "CQkJCQkJCQkJCQkJCQkJC+"]
        ),
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
            print(json.dumps([jsonschema_rs.Draft202012Validator(c["schema"], validate_formats=True).is_valid(c["value"]) for c in cases]))
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

    /// What the rules take, the code after them reads: every valid key decodes to 65 bytes
    /// starting 0x04, every endpoint has the origin its VAPID token is signed for, every `after`
    /// is a moment (and the one RFC 3339 names).
    @Test func whatTheRulesTakeTheCodeAfterThemReads() throws {
        for key in [
            "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4", "BP" + String(repeating: "_", count: 85) + "=",
        ] {
            #expect(TokenFields.p256dh.accepts(key))
            let bytes = try #require(Base64URL.decode(key))
            #expect(bytes.count == 65 && bytes.first == 0x04)
        }
        for (endpoint, origin) in [
            ("https://Push.Example.com:443/x?y=%2F", "https://push.example.com"), ("https://push.example.com:8443", "https://push.example.com:8443"),
            ("http://[::1]:9/x", "http://[::1]:9"), ("https://a.bc/(x)!*'", "https://a.bc"),
        ] {
            #expect(TokenFields.endpoint(allowInsecure: true).accepts(endpoint))
            #expect(try VAPIDIdentity.origin(of: endpoint) == origin, "\(endpoint)")
        }
        for (text, seconds) in [
            ("1781769600", 1_781_769_600.0), ("2026-06-18T08:00:00Z", 1_781_769_600), ("2026-06-18t09:30:00.25+01:30", 1_781_769_600.25),
            ("1970-01-01T00:00:00-00:00", 0), ("0001-01-01T00:00:00Z", -62_135_596_800), ("2024-02-29T23:59:59-23:59", 1_709_337_539),
        ] {
            #expect(TransitHandlers.after.accepts(text))
            #expect(TransitHandlers.time(text)?.timeIntervalSince1970 == seconds, "\(text)")
        }
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
