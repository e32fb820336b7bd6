import Foundation
import LivelineCLI
import LivelineDemo
import Testing

@Suite struct HelpTests {
    @Test func topLevelHelpListsEveryCommand() {
        let output = CapturedOutput()
        #expect(output.run(["--help"]) == 0)
        for command in LivelineCommandLine.builtIn.commands {
            #expect(output.standardOutput.contains("  \(command.name)"), "\(command.name) missing from --help")
        }
    }

    @Test func everyCommandHasItsOwnHelp() {
        for command in LivelineCommandLine.builtIn.commands {
            let output = CapturedOutput()
            #expect(output.run([command.name, "--help"]) == 0)
            #expect(output.standardOutput.contains("liveline \(command.name)"), "\(command.name) --help")
        }
    }

    @Test func serveHelpNamesEveryOptionAndVariable() {
        let output = CapturedOutput()
        #expect(output.run(["serve", "--help"]) == 0)
        for word in [
            "--port", "--host", "--data", "LIVELINE_PORT", "LIVELINE_DATA_DIR", "LIVELINE_ADMIN_KEY", "LIVELINE_ACCESS_LOG", "LIVELINE_LOG_LEVEL",
        ] {
            #expect(output.standardOutput.contains(word), "\(word)")
        }
    }

    @Test func unknownCommandsAndOptionsExitWith2() {
        let unknown = CapturedOutput()
        #expect(unknown.run(["frobnicate"]) == 2)
        #expect(unknown.standardError.contains("unknown command"))
        let option = CapturedOutput()
        #expect(option.run(["serve", "--prot", "1"]) == 2)
        #expect(option.standardError.contains("unknown option --prot"))
        #expect(CapturedOutput().run([]) == 2)
    }
}
