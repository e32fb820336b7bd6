import Testing

@testable import LivelineModel

/// A compiled pattern matches whole strings by Unicode scalars, with its groups made
/// non-capturing (the same matches, faster).
struct CompiledPatternTests {
    @Test func groupsBecomeNonCapturingButEscapesAndClassesStay() {
        #expect(CompiledPattern.withoutCaptures(#"^(a|[(]b)\(c(?:d)$"#) == #"^(?:a|[(]b)\(c(?:d)$"#)
        #expect(CompiledPattern.withoutCaptures(#"^[]()]([^](])$"#) == #"^[]()](?:[^](])$"#)
        #expect(CompiledPattern.withoutCaptures(#"^([\](])(x)$"#) == #"^(?:[\](])(?:x)$"#)
    }

    @Test func itMatchesWholeStringsByScalars() {
        let pattern = CompiledPattern("^(ab|c)+[^x]$")
        #expect(pattern.matches("abcy") && pattern.matches("cé"))
        #expect(!pattern.matches("abcy\n") && !pattern.matches("zabcy") && !pattern.matches("ce\u{301}"))
    }
}
