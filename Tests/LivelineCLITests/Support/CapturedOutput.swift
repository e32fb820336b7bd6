import Foundation
import Liveline
import LivelineAPI
import LivelineCLI
import LivelineDemo

/// A `CLIContext` whose output lines are kept for the test to read.
final class CapturedOutput: @unchecked Sendable {
    private let lock = NSLock()
    private var out: [String] = []
    private var err: [String] = []

    var standardOutput: String { lock.withLock { out.joined(separator: "\n") } }
    var standardError: String { lock.withLock { err.joined(separator: "\n") } }

    /// The environment commands see.
    var environment: [String: String] = [:]
    /// The features commands serve.
    var features: [any Feature] = Assembly.features

    var context: CLIContext {
        CLIContext(
            environment: environment,
            standardOutput: { line in self.lock.withLock { self.out.append(line) } },
            standardError: { line in self.lock.withLock { self.err.append(line) } },
            features: features
        )
    }

    /// Runs `liveline <arguments>` in-process; returns the exit code.
    func run(_ arguments: [String]) -> Int32 {
        LivelineCommandLine.builtIn.run(arguments, context: context)
    }
}
