/// The `liveline` command line: dispatches to one of `commands`.
public enum LivelineCommandLine {
    /// Every command, in `--help` order.
    public static let commands: [any CLICommand.Type] = [
        ServeCommand.self,
        DemoCommand.self,
        UsersCommand.self,
        PushCommand.self,
        DoctorCommand.self,
        ContractsCommand.self,
        TransitCommand.self,
        SandboxCommand.self,
        SettingsCommand.self,
    ]

    public static let usage = """
        liveline — a self-hostable backend for iOS Live Activities

        Usage: liveline <command> [options]

        Commands:
        \(commands.map { "  " + $0.name.padding(toLength: 12, withPad: " ", startingAt: 0) + $0.summary }.joined(separator: "\n"))

        Run `liveline <command> --help` for a command's options.
        """

    /// Runs the command line `arguments` (without the program name); returns the exit code.
    public static func run(_ arguments: [String], context: CLIContext = .process()) -> Int32 {
        guard let name = arguments.first else {
            context.printError(usage)
            return 2
        }
        if name == "--help" || name == "-h" || name == "help" {
            context.print(usage)
            return 0
        }
        guard let command = commands.first(where: { $0.name == name }) else {
            context.printError("liveline: unknown command '\(name)'. Run `liveline --help` for the list.")
            return 2
        }
        let rest = Array(arguments.dropFirst())
        if rest.contains("--help") || rest.contains("-h") {
            context.print(command.help(context))
            return 0
        }
        do {
            return try command.run(rest, context: context)
        } catch let error as CLIError {
            context.printError("liveline \(name): \(error.message)\nRun `liveline \(name) --help` for usage.")
            return 2
        } catch {
            context.printError("liveline \(name): \(error)")
            return 1
        }
    }
}
