import Foundation

/// What a command may touch of the outside world: its output streams and the environment.
/// Tests pass their own to capture output.
public struct CLIContext: Sendable {
    public var environment: [String: String]
    public var standardOutput: @Sendable (String) -> Void
    public var standardError: @Sendable (String) -> Void

    public init(
        environment: [String: String],
        standardOutput: @escaping @Sendable (String) -> Void,
        standardError: @escaping @Sendable (String) -> Void
    ) {
        self.environment = environment
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    /// The real process: its environment, stdout and stderr.
    public static var process: CLIContext {
        CLIContext(
            environment: ProcessInfo.processInfo.environment,
            standardOutput: { text in FileHandle.standardOutput.write(Data((text + "\n").utf8)) },
            standardError: { text in FileHandle.standardError.write(Data((text + "\n").utf8)) }
        )
    }

    /// Prints one line to standard output.
    public func print(_ text: String) { standardOutput(text) }
    /// Prints one line to standard error.
    public func printError(_ text: String) { standardError(text) }
}
