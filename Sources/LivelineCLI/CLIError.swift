/// A mistake on the command line: printed as `liveline: <message>` with a hint to `--help`,
/// exit code 2.
public struct CLIError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
