import Foundation
import LivelineModel
import Testing

struct JSONNestingTests {
    static func nested(_ depth: Int, closed: Bool) -> Data {
        Data((String(repeating: "[", count: depth) + (closed ? String(repeating: "]", count: depth) : "")).utf8)
    }

    /// The text this toolchain's `JSONDecoder` traps on: without the check this test stops the process.
    @Test(arguments: [513, 514, 5000]) func aTextNestedDeeperThan512IsRefusedBeforeTheDecoderSeesIt(depth: Int) {
        #expect(JSONNesting.exceeds(512, in: Self.nested(depth, closed: false)))
        #expect {
            _ = try JSONDecoder().decode(JSONValue.self, fromUntrusted: Self.nested(depth, closed: false))
        } throws: { error in
            guard let error = error as? DecodingError else { return false }
            return DecodingProblem(error, in: nil).message().contains("nest at most 512 deep")
        }
    }

    @Test func upTo512DeepDecodesAndBracketsInStringsDoNotCount() throws {
        #expect(!JSONNesting.exceeds(512, in: Self.nested(512, closed: true)))
        var value = try JSONDecoder().decode(JSONValue.self, fromUntrusted: Self.nested(512, closed: true))
        var depth = 0
        while case .array(let items) = value {
            depth += 1
            value = items.first ?? .null
        }
        #expect(depth == 512)

        let quoted = Data(("[\"" + String(repeating: "[{", count: 600) + "\\\"[\"]").utf8)
        #expect(!JSONNesting.exceeds(512, in: quoted))
        #expect(try JSONDecoder().decode([String].self, fromUntrusted: quoted).first?.count == 1202)
        // Closing brackets before any opening one count as none (the text is no JSON anyway).
        #expect(JSONNesting.exceeds(2, in: Data("]]][[[".utf8)))
        #expect(!JSONNesting.exceeds(3, in: Data("[[[]]][[[".utf8)))
    }
}
