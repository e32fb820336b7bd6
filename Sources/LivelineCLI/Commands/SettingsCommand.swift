/// `liveline settings`: every `LIVELINE_*` variable the code reads, as Markdown; docs/configuration.md
/// is its output, and a test holds the file to it.
enum SettingsCommand: CLICommand {
    static let name = "settings"
    static let summary = "print every LIVELINE_* variable: default, values, meaning, commands (docs/configuration.md)"
    static func help(_ context: CLIContext) -> String {
        """
        Usage: liveline settings

        Prints every LIVELINE_* environment variable the server and the other commands read, as
        Markdown: its default, the values it takes, what it does and the commands it changes.
        The rows are the ones the configuration is read from, so this is what the code does.
        docs/configuration.md is this output; after changing a setting, write it again with

          swift run liveline settings > docs/configuration.md
        """
    }

    static func run(_ arguments: [String], context: CLIContext) throws -> Int32 {
        guard arguments.isEmpty else { throw CLIError("unexpected argument '\(arguments[0])'") }
        context.print(SettingsTable(features: context.features).markdown)
        return 0
    }
}
