import LivelineCLI

extension LivelineCommandLine {
    /// The `liveline` executable's command line: the generic commands, and after `serve` and
    /// `contracts` the built-in features' own — `demo`, which plays them, and `transit`, the
    /// transit feature's feed tools. Run with a context of the built-in features
    /// (`CLIContext.process()`).
    public static let builtIn = LivelineCommandLine()
        .inserting(DemoCommand.self, after: "serve")
        .inserting(TransitCommand.self, after: "contracts")
}
