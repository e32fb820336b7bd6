import Foundation
import LivelineCLI
import Testing

/// `liveline demo`'s command line: its help, and every bad option refused before anything starts.
@Suite struct DemoCommandTests {
    @Test func helpNamesEveryOptionAndStory() {
        let output = CapturedOutput()
        #expect(output.run(["demo", "--help"]) == 0)
        for word in ["--port", "--data", "--speed", "--for", "shopping", "dinner", "tram", "/dashboard/", "Ctrl-C"] {
            #expect(output.standardOutput.contains(word), "\(word)")
        }
    }

    @Test(arguments: [
        (["--speed", "0"], "--speed must be a number greater than 0"),
        (["--speed", "-2"], "--speed must be a number greater than 0"),
        (["--speed", "fast"], "--speed must be a number greater than 0"),
        (["--speed", "nan"], "--speed must be a number greater than 0"),
        (["--speed", "1000"], "at most 100"),
        (["--for", "0"], "--for must be a whole number of seconds, at least 1"),
        (["--for", "1.5"], "--for must be a whole number of seconds, at least 1"),
        (["--for", "soon"], "--for must be a whole number of seconds, at least 1"),
        (["--port", "65536"], "--port must be a whole number from 0 to 65535"),
        (["--port", "-1"], "--port must be a whole number from 0 to 65535"),
        (["--data"], "option --data needs a value"),
        (["--sped", "2"], "unknown option --sped"),
        (["now"], "unexpected argument 'now'"),
    ])
    func badOptionsAreRefusedWithExitCode2(arguments: [String], message: String) {
        let output = CapturedOutput()
        #expect(output.run(["demo"] + arguments) == 2)
        #expect(output.standardError.contains(message), "\(arguments): \(output.standardError)")
        #expect(output.standardError.contains("Run `liveline demo --help` for usage."))
    }
}
