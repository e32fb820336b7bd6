/// A `liveline` command line: dispatches to one of `commands`, which serve the features of the
/// context they are run with (``CLIContext/features``).
///
/// The commands here name no feature (docs/architecture.md, "The module map"); the `liveline`
/// executable adds the built-in features' own (`LivelineDemo`), and a backend built on Liveline
/// may run these with its own features.
public struct LivelineCommandLine: Sendable {
    /// The commands, in `--help` order.
    public var commands: [any CLICommand.Type]

    public init(commands: [any CLICommand.Type] = LivelineCommandLine.generic) {
        self.commands = commands
    }

    /// The commands that work for any features, in `--help` order.
    public static let generic: [any CLICommand.Type] = [
        ServeCommand.self,
        UsersCommand.self,
        BackupCommand.self,
        RestoreCommand.self,
        PushCommand.self,
        DoctorCommand.self,
        ContractsCommand.self,
        SandboxCommand.self,
        SettingsCommand.self,
    ]

    /// These commands with `command` after the one named `name` (at the end when there is none).
    public func inserting(_ command: any CLICommand.Type, after name: String) -> LivelineCommandLine {
        var commands = commands
        let index = commands.firstIndex { $0.name == name }.map { $0 + 1 } ?? commands.endIndex
        commands.insert(command, at: index)
        return LivelineCommandLine(commands: commands)
    }

    /// The text of `liveline --help`.
    public var usage: String {
        """
        liveline — a self-hostable backend for iOS Live Activities

        Usage: liveline <command> [options]

        Commands:
        \(commands.map { "  " + $0.name.padding(toLength: 12, withPad: " ", startingAt: 0) + $0.summary }.joined(separator: "\n"))

        Run `liveline <command> --help` for a command's options.
        """
    }

    /// Runs the command line `arguments` (without the program name); returns the exit code.
    public func run(_ arguments: [String], context: CLIContext = .process()) -> Int32 {
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
