import Foundation
import Testing

@testable import LivelineModel

/// The JSON reader (`JSONParser`, behind `JSONValue(json:)`) and writer (`JSONWriter`, behind
/// `compactJSON`), against RFC 8259 and beside Foundation's `JSONDecoder` / `JSONEncoder`.
struct JSONParserTests {
    static func parse(_ text: String) throws -> JSONValue { try JSONValue(json: Data(text.utf8)) }

    /// The reason in the underlying error, as the payload check shows it.
    static func reason(_ text: String) -> String? {
        do {
            _ = try parse(text)
            return nil
        } catch let DecodingError.dataCorrupted(context) {
            return (context.underlyingError as NSError?)?.userInfo[NSDebugDescriptionErrorKey] as? String
        } catch {
            return "unexpected error \(error)"
        }
    }

    static let documents = [
        #"{"aps":{"timestamp":1767000000,"event":"update","content-state":{"score":"2:1","progress":0.5,"late":false,"rest":null}}}"#,
        #"[1, -2, 3.25, -0.5e-3, 1E+2, 9223372036854775807, -9223372036854775808, 18446744073709551616, 0]"#,
        #" { "nested" : [ [ ], { }, [ { "a" : [ true , false , null ] } ] ] } "#,
        #""caf\u00e9 \ud83d\ude00 \"q\" \\ \/ \b\f\n\r\t \u0000 日本 😀""#,
        "\"\u{2028} \u{7F}\"", "7", "-0", "true", "null", #""""#,
    ]

    @Test(arguments: documents)
    func readsWhatJSONDecoderReadsAsTheSameValue(_ text: String) throws {
        let parsed = try Self.parse(text)
        let foundation = try JSONDecoder().decode(JSONValue.self, from: Data(text.utf8))
        #expect(parsed == foundation)
        // Written back, it reads as the same value, and JSONEncoder's bytes read as it too.
        #expect(try JSONValue(json: parsed.compactJSON) == parsed)
        #expect(try JSONValue(json: JSONEncoder().encode(parsed)) == parsed)
    }

    @Test func keepsIntegersApartFromFractionsAndLargeNumbers() throws {
        #expect(
            try Self.parse("[42, 4.5, 1e2, 18446744073709551616, -9223372036854775808]")
                == .array([.int(42), .double(4.5), .double(100), .double(18_446_744_073_709_551_616), .int(Int.min)]))
        guard case .array(let values) = try Self.parse("[42, 1e2]") else { throw ParserTestError("not an array") }
        #expect(values.map(\.kindDescription) == ["a number", "a number"])
        if case .int = values[0] {} else { Issue.record("42 is not read as an Int: \(values[0])") }
        if case .double = values[1] {} else { Issue.record("1e2 is not read as a Double: \(values[1])") }
    }

    @Test func joinsSurrogatePairsAndKeepsTheFirstOfARepeatedMember() throws {
        #expect(try Self.parse(#""\ud83d\ude00""#) == .string("😀"))
        #expect(try Self.parse(#"{"a":1,"a":2}"#) == .object(["a": .int(1)]))
    }

    static let refused: [(text: String, reason: String)] = [
        ("", "unexpected end of the text, expected a value (line 1, column 1)"),
        ("[1,]", "unexpected ']', expected a value (line 1, column 4)"),
        (#"{"a":1,}"#, "unexpected '}', expected a member name in double quotes (line 1, column 8)"),
        ("{\n  \"a\" 1}", "unexpected '1', expected ':' after the member name (line 2, column 7)"),
        ("[1 2]", "unexpected '2', expected ',' or ']' after an array element (line 1, column 4)"),
        ("01", "a number cannot start with 0 followed by digits (line 1, column 2)"),
        ("1.", "unexpected end of the text, expected a digit after the decimal point (line 1, column 3)"),
        ("-", "unexpected end of the text, expected a digit in the number (line 1, column 2)"),
        ("1e400", "the number 1e400 is outside the range of a 64-bit floating point number (line 1, column 1)"),
        ("nul", "unexpected 'n', expected a value (line 1, column 1)"),
        ("NaN", "unexpected 'N', expected a value (line 1, column 1)"),
        ("\"a\tb\"", "a control character (U+0009) must be escaped in a string (line 1, column 3)"),
        (#""\x""#, #"\x is not an escape; expected \" \\ \/ \b \f \n \r \t or \uXXXX (line 1, column 3)"#),
        (#""\ud800""#, #"\uD800 is the first half of a surrogate pair, and no second half follows (line 1, column 8)"#),
        (#""\udc00""#, #"\uDC00 is the second half of a surrogate pair without its first (line 1, column 8)"#),
        (#""\ud800\u0041""#, #"\u0041 cannot follow \uD800: a surrogate pair needs \uDC00…\uDFFF second (line 1, column 14)"#),
        (#""\u12G4""#, "a \\u escape takes four hexadecimal digits, found 'G' (line 1, column 6)"),
        ("\"abc", "unexpected end of the text inside a string (line 1, column 5)"),
        ("1 2", "unexpected text after the JSON value (line 1, column 3)"),
    ]

    @Test(arguments: refused)
    func refusesWhatRFC8259RefusesSayingWhereAndWhy(_ example: (text: String, reason: String)) {
        #expect(Self.reason(example.text) == example.reason)
    }

    @Test func refusesBytesThatAreNotUTF8() throws {
        for bytes: [UInt8] in [
            [0x22, 0xFF, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], [0x22, 0xE2, 0x82],
        ] {
            #expect(throws: DecodingError.self) { try JSONValue(json: bytes) }
        }
        #expect(try JSONValue(json: [0x22, 0xE2, 0x82, 0xAC, 0x22]) == .string("€"))
    }

    @Test func refusesNestingDeeperThanJSONDecoder() throws {
        let limit = JSONParser.maxDepth
        #expect(throws: Never.self) { try Self.parse(String(repeating: "[", count: limit) + String(repeating: "]", count: limit)) }
        #expect(
            Self.reason(String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1))?.hasPrefix(
                "arrays and objects are nested more than 512 deep") == true)
    }

    @Test func writesCompactSortedAndEscapedLikeJSONEncoder() throws {
        let value: JSONValue = [
            "b": [1, .double(2.5), true, nil], "a": "x/\"\\\u{1}\n\t\u{8}\u{C}\r é", "c": .double(1), "d": .double(1e20), "e": .double(-0.0),
        ]
        #expect(value.compactText == #"{"a":"x/\"\\\u0001\n\t\b\f\r é","b":[1,2.5,true,null],"c":1,"d":1e+20,"e":-0}"#)
        // Each member as JSONEncoder writes it (its member order is the dictionary's).
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        for member in value.objectValue!.values {
            #expect(member.compactText == String(decoding: try encoder.encode(member), as: UTF8.self))
        }
        #expect(JSONValue.double(.nan).compactText == "null")
        #expect(JSONValue.array([.double(.infinity)]).compactText == "null")
    }
}

struct ParserTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
