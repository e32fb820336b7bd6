/// One `liveline <command>`: its name, one-line summary, full help, and what it does.
public protocol CLICommand: Sendable {
    /// The word after `liveline`, e.g. `serve`.
    static var name: String { get }
    /// One line for `liveline --help`.
    static var summary: String { get }
    /// The whole text of `liveline <name> --help` for the features of `context`: usage, options,
    /// defaults, examples.
    static func help(_ context: CLIContext) -> String
    /// Runs the command with the arguments after its name; returns the process exit code.
    static func run(_ arguments: [String], context: CLIContext) throws -> Int32
}
