import LivelineCLI
import Testing

/// `liveline sandbox` option checks, in-process.
struct SandboxCommandTests {
    @Test func helpListsTheOptionsAndBadValuesAreRefused() {
        let help = CapturedOutput()
        #expect(help.run(["sandbox", "--help"]) == 0)
        for option in [
            "--port", "--management-port", "--control-port", "--host", "--data", "--bundle-id", "--max-concurrent-streams", "--accept-any-token",
        ] {
            #expect(help.standardOutput.contains(option))
        }
        let bad = CapturedOutput()
        #expect(bad.run(["sandbox", "--environment", "staging"]) == 2)
        #expect(bad.standardError.contains("development or production"))
        #expect(CapturedOutput().run(["sandbox", "--port", "70000"]) == 2)
    }
}
