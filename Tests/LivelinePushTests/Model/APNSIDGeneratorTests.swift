import Foundation
import LivelinePush
import LivelinePushWire
import Testing

@Suite struct APNSIDGeneratorTests {
    @Test func idsAreLowercaseVersion4UUIDsThatFoundationReadsBack() {
        var generator = APNSIDGenerator()
        for _ in 0..<1000 {
            let id = generator.next()
            #expect(id.utf8.count == 36, "\(id)")
            #expect(id.wholeMatch(of: /[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/) != nil, "\(id)")
            // The same UUID as Foundation reads it: nothing lost or reordered in the formatting.
            #expect(UUID(uuidString: id)?.uuidString.lowercased() == id, "\(id)")
        }
    }

    @Test func idsDoNotRepeatWithinAGeneratorOrAcrossGenerators() {
        var first = APNSIDGenerator()
        var second = APNSIDGenerator()
        var seen = Set<String>()
        for _ in 0..<50_000 {
            seen.insert(first.next())
            seen.insert(second.next())
        }
        #expect(seen.count == 100_000)
    }

    @Test func everyHexDigitAppearsInEveryFreePosition() {
        // A formatting slip (a shift off by a nibble, a digit table cut short) shows as a position
        // that never takes some digit.
        var generator = APNSIDGenerator()
        var digits = Array(repeating: Set<Character>(), count: 36)
        for _ in 0..<4000 {
            for (index, character) in generator.next().enumerated() { digits[index].insert(character) }
        }
        for index in 0..<36 {
            switch index {
            case 8, 13, 18, 23: #expect(digits[index] == ["-"])
            case 14: #expect(digits[index] == ["4"])
            case 19: #expect(digits[index] == ["8", "9", "a", "b"])
            default: #expect(digits[index].count == 16, "position \(index): \(digits[index].sorted())")
            }
        }
    }
}
