import Foundation
import LivelineModel

/// `liveline contracts`: lists the Live Activity contracts, shows one, and checks a payload file
/// the way the server checks every push before sending it (`docs/contracts.md`, `docs/apns.md` §1.5).
enum ContractsCommand: CLICommand {
    static let name = "contracts"
    static let summary = "list, show and check Live Activity contracts and payload files"
    static func help(_ context: CLIContext) -> String {
        // The examples name a contract of the features served, not a built-in one.
        let example = context.contracts.names.first ?? "TYPE"
        return """
            Usage:
              liveline contracts list
              liveline contracts show TYPE
              liveline contracts check FILE [--type TYPE] [--broadcast] [--now SECONDS]
              liveline contracts diff OLD NEW

            list    prints the ActivityAttributes type names of the features served and of the
                    contract files in LIVELINE_CONTRACTS_DIR (the contracts the server checks
                    against), one a line; a file that cannot be loaded is named on stderr.
            show    prints a contract's keys with type and optionality, and an example start payload.
            check   checks a push body (JSON) as the server does before sending and as a phone
                    decodes it, and explains every problem: key names and types, Dates (seconds
                    since 2001-01-01 in content-state, UNIX seconds in aps), size limits, and the
                    aps rules (start needs attributes-type, attributes and an alert with a title, …).
            diff    compares two contract files (an app's exported type before and after a change)
                    as the server does before it takes a new version: which changes would make an
                    app built with OLD drop pushes. Exit 1 when one would, or when NEW's version is
                    lower, or the same with another shape (the server refuses both); else 0.

            Options of check:
              --type TYPE     the contract to check against; may be left out when the file is a
                              start payload with "attributes-type"
              --broadcast     check against the broadcast limit (5120 bytes) instead of 4096
              --now SECONDS   check as of this UNIX time instead of the clock

            Exit codes: 0 accepted (warnings allowed), 1 rejected, 2 usage error.

            Examples:
              liveline contracts show \(example)
              liveline contracts check start.json
              liveline contracts check update.json --type \(example) --broadcast
            """
    }

    static func run(_ arguments: [String], context: CLIContext) throws -> Int32 {
        let arguments = try Arguments(arguments, options: ["type", "now"], flags: ["broadcast"])
        guard let subcommand = arguments.positionals.first else {
            throw CLIError("missing subcommand: list, show TYPE, check FILE or diff OLD NEW")
        }
        let operands = Array(arguments.positionals.dropFirst())
        if subcommand != "check", arguments.value("type") != nil || arguments.value("now") != nil || arguments.flag("broadcast") {
            throw CLIError("--type, --now and --broadcast belong to `contracts check`")
        }
        let now = try now(arguments)
        switch subcommand {
        case "list":
            guard operands.isEmpty else { throw CLIError("`contracts list` takes no arguments") }
            context.contracts.names.forEach(context.print)
            for (file, reason) in context.contractFiles().skipped { context.printError("skipped \(file): \(reason)") }
            return 0
        case "diff":
            guard operands.count == 2 else { throw CLIError("`contracts diff` takes two contract files: OLD NEW") }
            return try diff(old: operands[0], new: operands[1], context: context)
        case "show":
            guard operands.count == 1 else { throw CLIError("`contracts show` takes one TYPE") }
            try context.print(ContractDescription.text(of: contract(named: operands[0], in: context.contracts), now: now))
            return 0
        case "check":
            guard operands.count == 1 else { throw CLIError("`contracts check` takes one FILE") }
            return try check(file: operands[0], arguments: arguments, now: now, context: context)
        default:
            throw CLIError("unknown subcommand '\(subcommand)'; expected list, show, check or diff")
        }
    }

    static func check(file: String, arguments: Arguments, now: Date, context: CLIContext) throws -> Int32 {
        let registry = context.contracts
        let contract = try arguments.value("type").map { try Self.contract(named: $0, in: registry) }
        let json: Data
        do {
            json = try Data(contentsOf: URL(fileURLWithPath: file))
        } catch {
            throw CLIError("cannot read \(file): \((error as NSError).localizedDescription)")
        }
        let destination: PushDestination = arguments.flag("broadcast") ? .broadcast : .device
        let report = PayloadCheck(destination: destination, now: now, registry: registry).check(json: json, contract: contract)
        if contract == nil, !report.problems(.unknownContract).isEmpty {
            throw CLIError(
                "\(file) names no contract (no aps.attributes-type): give one with --type TYPE; known: \(registry.names.joined(separator: ", "))"
            )
        }
        context.print(report.text(file: file, destination: destination))
        return report.isAccepted ? 0 : 1
    }

    /// `contracts diff OLD NEW`: the server's verdict on NEW as a version after OLD, offline.
    static func diff(old: String, new: String, context: CLIContext) throws -> Int32 {
        func read(_ path: String) throws -> ContractFile {
            let data: Data
            do {
                data = try Data(contentsOf: URL(fileURLWithPath: path))
            } catch {
                throw CLIError("cannot read \(path): \((error as NSError).localizedDescription)")
            }
            do {
                return try ContractFile.parse(data)
            } catch {
                throw CLIError("\(path) is not a contract file: \(error)")
            }
        }
        let (before, after) = (try read(old), try read(new))
        guard before.typeName == after.typeName else {
            throw CLIError("\(old) is \(before.typeName) and \(new) is \(after.typeName): a version follows one of the same type")
        }
        context.print(ContractCompatibility.report(from: before.schema, to: after.schema, oldVersion: before.version, newVersion: after.version))
        let breaking = ContractCompatibility.changes(from: before.schema, to: after.schema).contains(where: \.isBreaking)
        // The server refuses a lower version, and another shape under the same number, too.
        let renumbered = after.version < before.version || (after.version == before.version && after.fingerprint != before.fingerprint)
        return breaking || renumbered ? 1 : 0
    }

    /// The contract of `registry` named `name`; an unknown name is a usage error listing the known ones.
    static func contract(named name: String, in registry: ContractRegistry) throws -> AnyContract {
        if let contract = registry.contract(named: name) { return contract }
        var message = "unknown contract type '\(name)'; known: \(registry.names.joined(separator: ", "))"
        if let suggestion = registry.suggestions(for: name).first { message += ". Did you mean '\(suggestion)'?" }
        throw CLIError(message)
    }

    static func now(_ arguments: Arguments) throws -> Date {
        guard let text = arguments.value("now") else { return Date() }
        guard let seconds = Double(text), seconds >= 0 else {
            throw CLIError("--now must be UNIX seconds, e.g. 1767574000, not '\(text)'")
        }
        return Date(timeIntervalSince1970: seconds)
    }
}
