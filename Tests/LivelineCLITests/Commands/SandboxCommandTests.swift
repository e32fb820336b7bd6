@testable import LivelineCLI
import LivelineSandbox
import Testing

/// `liveline sandbox` option checks, in-process.
struct SandboxCommandTests {
    @Test func helpListsTheOptionsAndBadValuesAreRefused() {
        let help = CapturedOutput()
        #expect(help.run(["sandbox", "--help"]) == 0)
        for option in [
            "--port", "--management-port", "--control-port", "--web-push-port", "--host", "--data", "--bundle-id", "--max-concurrent-streams",
            "--accept-any-token", "--keep N|all",
        ] {
            #expect(help.standardOutput.contains(option))
        }
        let bad = CapturedOutput()
        #expect(bad.run(["sandbox", "--environment", "staging"]) == 2)
        #expect(bad.standardError.contains("development or production"))
        #expect(CapturedOutput().run(["sandbox", "--port", "70000"]) == 2)
    }

    @Test func theProductionPortsBelongToBothEnvironments() {
        let help = CapturedOutput()
        #expect(help.run(["sandbox", "--help"]) == 0)
        for word in [
            "development|production|both", "--production-port", "--production-management-port", "--production-control-port",
            "--production-web-push-port",
        ] {
            #expect(help.standardOutput.contains(word), "\(word)")
        }
        let alone = CapturedOutput()
        #expect(alone.run(["sandbox", "--production-port", "0"]) == 2)
        #expect(alone.standardError.contains("--production-port needs --environment both"))
        let production = CapturedOutput()
        #expect(production.run(["sandbox", "--environment", "production", "--production-control-port", "0"]) == 2)
        #expect(production.standardError.contains("--production-control-port needs --environment both"))
        #expect(CapturedOutput().run(["sandbox", "--environment", "both", "--production-port", "70000"]) == 2)
        let shared = CapturedOutput()
        #expect(shared.run(["sandbox", "--environment", "both", "--port", "0", "--production-port", "2195"]) == 2)
        #expect(shared.standardError.contains("--management-port and --production-port are both 2195"))
        let webPush = CapturedOutput()
        #expect(webPush.run(["sandbox", "--environment", "both", "--web-push-port", "2400", "--production-web-push-port", "2400"]) == 2)
        #expect(webPush.standardError.contains("--web-push-port and --production-web-push-port are both 2400"))
        #expect(CapturedOutput().run(["sandbox", "--production-web-push-port", "0"]) == 2)
    }

    @Test func aSandboxOfItsOwnKeepsABoundedHistoryUnlessAskedForAll() throws {
        let options: Set<String> = ["keep"]
        let (bounded, _) = try SandboxCommand.configuration(try Arguments([], options: options))
        #expect(bounded.acceptedKept?.perTarget == 1000)
        #expect(bounded.acceptedKept?.total == 100_000)
        let (smaller, _) = try SandboxCommand.configuration(try Arguments(["--keep", "500"], options: options))
        #expect(smaller.acceptedKept?.total == 500)
        #expect(smaller.acceptedKept?.perTarget == 1000)
        let (all, _) = try SandboxCommand.configuration(try Arguments(["--keep", "all"], options: options))
        #expect(all.acceptedKept == nil)
        for bad in ["0", "-3", "lots"] {
            let refused = CapturedOutput()
            #expect(refused.run(["sandbox", "--keep", bad]) == 2)
            #expect(refused.standardError.contains("--keep must be all or a whole number of pushes from 1 up, not '\(bad)'"))
        }
    }
}
