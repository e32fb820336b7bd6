import Foundation
import LivelineModel
import Testing

struct JSONValueTests {
    @Test func numbersCompareByValueSoDocumentsCompareAsJSON() throws {
        let a = try JSONValue(json: Data(#"{"a": 14.30, "b": [7, true, null], "c": "x"}"#.utf8))
        let b = try JSONValue(json: Data(#"{"c":"x","b":[7.0,true,null],"a":14.3}"#.utf8))
        #expect(a == b)
        #expect(Set([a, b]).count == 1)
        #expect(a != (try JSONValue(json: Data(#"{"a": 14.31, "b": [7, true, null], "c": "x"}"#.utf8))))
    }

    @Test func keepsBoolsApartFromNumbers() throws {
        let value = try JSONValue(json: Data(#"[true, 1, 1.5, "1"]"#.utf8))
        #expect(value == .array([.bool(true), .int(1), .double(1.5), .string("1")]))
        #expect(JSONValue.bool(true) != .int(1))
    }
}
