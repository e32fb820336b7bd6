import Foundation
import Liveline
import LivelineAPI
import LivelineModel

/// What a command may touch of the outside world — its output streams and the environment — and
/// the features it serves. Tests pass their own to capture output or to serve other features.
public struct CLIContext: Sendable {
    public var environment: [String: String]
    public var standardOutput: @Sendable (String) -> Void
    public var standardError: @Sendable (String) -> Void
    /// The features the commands serve, in the order their migrations run: `serve` runs them,
    /// `users` migrates them, `settings` lists their settings, and `contracts`, `push` and
    /// `sandbox --devices` know their contracts (``contracts``). By default the built-in ones
    /// (`Assembly.features`; docs/architecture.md, "Adding a feature").
    public var features: [any Feature]

    public init(
        environment: [String: String],
        standardOutput: @escaping @Sendable (String) -> Void,
        standardError: @escaping @Sendable (String) -> Void,
        features: [any Feature] = Assembly.features
    ) {
        self.environment = environment
        self.standardOutput = standardOutput
        self.standardError = standardError
        self.features = features
    }

    /// The real process: its environment, stdout and stderr, serving `features`.
    public static func process(features: [any Feature] = Assembly.features) -> CLIContext {
        CLIContext(
            environment: ProcessInfo.processInfo.environment,
            standardOutput: { text in FileHandle.standardOutput.write(Data((text + "\n").utf8)) },
            standardError: { text in FileHandle.standardError.write(Data((text + "\n").utf8)) },
            features: features
        )
    }

    /// The one registry the commands know: the features' contracts (`Assembly.contracts(of:)`)
    /// and the contract files of `LIVELINE_CONTRACTS_DIR`, as `serve` loads them.
    public var contracts: ContractRegistry {
        let builtIn = Assembly.contracts(of: features).builtIn
        return ContractRegistry(contracts: builtIn + contractFiles(builtIn: builtIn).contracts)
    }

    /// The contract files of `LIVELINE_CONTRACTS_DIR`, and those skipped with why.
    func contractFiles(builtIn: [AnyContract]? = nil) -> ContractFiles {
        ContractFiles(
            folder: environment["LIVELINE_CONTRACTS_DIR"], builtIn: Set((builtIn ?? Assembly.contracts(of: features).builtIn).map(\.typeName)))
    }

    /// Prints one line to standard output.
    public func print(_ text: String) { standardOutput(text) }
    /// Prints one line to standard error.
    public func printError(_ text: String) { standardError(text) }
}
