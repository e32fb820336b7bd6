import Foundation
import Liveline
import LivelineCrypto
import LivelineModel
import LivelineServer
import LivelineStore

/// `liveline users`: household and user administration, straight on the server's database (the
/// data folder's, or the PostgreSQL one of `--database-url`; safe while the server runs).
enum UsersCommand: CLICommand {
    static let name = "users"
    static let summary = "add, list and sign out users and households"
    static func help(_ context: CLIContext) -> String {
        """
        Usage:
          liveline users add --household NAME --name NAME [--tint COLOR] [--emoji E] [--locale de|en] [--data DIR | --database-url URL]
          liveline users list [--json] [--data DIR | --database-url URL]
          liveline users revoke (--user ID | --token TOKEN) [--data DIR | --database-url URL]

        add   creates the user (and the household, when NAME is new) and a device session, and
              prints {"userId", "householdId", "token"}. The token is the user's bearer token for
              the /api routes; it is shown only now (the server keeps only its SHA-256 hash).
              --tint   avatar colour name, e.g. azure, coral      (default azure)
              --emoji  avatar emoji                                (default 🙂)
              --locale de or en; default: the household's (a new household: de)
        list  prints every user with their household; --json prints a JSON array.
        revoke ends sessions: every one of user ID, or the one of bearer TOKEN; their tokens are
              refused from the next request on, by every server sharing the database (a running
              one too). Prints {"revoked": N}; exit 1 when there was nothing to end.

        --data DIR          data folder [LIVELINE_DATA_DIR, ./liveline-data]
        --database-url URL  the PostgreSQL database of the servers [LIVELINE_DATABASE_URL]
        """
    }

    static func run(_ arguments: [String], context: CLIContext) throws -> Int32 {
        guard let sub = arguments.first else { throw CLIError("say `add`, `list` or `revoke`") }
        let rest = Array(arguments.dropFirst())
        switch sub {
        case "add": return try add(rest, context: context)
        case "list": return try list(rest, context: context)
        case "revoke": return try revoke(rest, context: context)
        default: throw CLIError("unknown subcommand '\(sub)'; say `add`, `list` or `revoke`")
        }
    }

    static func add(_ arguments: [String], context: CLIContext) throws -> Int32 {
        let args = try Arguments(arguments, options: ["household", "name", "tint", "emoji", "locale", "data", "database-url"])
        guard args.positionals.isEmpty else { throw CLIError("unexpected argument '\(args.positionals[0])'") }
        let household = try text(args, "household", required: true)!
        let name = try text(args, "name", required: true)!
        let tint = try text(args, "tint") ?? "azure"
        guard tint.allSatisfy({ $0.isASCII && $0.isLetter }) else {
            throw CLIError("--tint must be a colour name in letters, e.g. azure or coral")
        }
        let emoji = try text(args, "emoji") ?? "🙂"
        guard emoji.count <= 4 else { throw CLIError("--emoji must be one emoji") }
        let locale = args.value("locale")
        if let locale, !["de", "en"].contains(locale) { throw CLIError("--locale must be de or en, not '\(locale)'") }

        let configuration = try ServeCommand.configuration(args, context: context)
        let store = try configuration.openStore(features: context.features.map(\.featureMigrations))
        defer { store.database.close() }  // the database's threads end before the process does
        // Without --locale a user speaks their household's language (a new household: de).
        let householdLocale = try store.accounts.users().first { $0.householdName == household }
            .flatMap { try store.accounts.household(id: $0.householdID) }?.locale
        let token = SecureRandom.token(prefix: "ll_")
        let user = try store.accounts.createUser(
            household: household, name: name, avatarTint: tint.lowercased(), emoji: emoji, locale: locale ?? householdLocale ?? "de",
            tokenHash: SHA256.hex(token), now: Date()
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let created = UserCreated(userID: user.id.rawValue, householdID: user.householdID.rawValue, token: token)
        context.print(String(decoding: try encoder.encode(created), as: UTF8.self))
        return 0
    }

    static func list(_ arguments: [String], context: CLIContext) throws -> Int32 {
        let args = try Arguments(arguments, options: ["data", "database-url"], flags: ["json"])
        guard args.positionals.isEmpty else { throw CLIError("unexpected argument '\(args.positionals[0])'") }
        let configuration = try ServeCommand.configuration(args, context: context)
        let store = try configuration.openStore(features: context.features.map(\.featureMigrations))
        defer { store.database.close() }
        let users = try store.accounts.users()
        if args.flag("json") {
            let profiles = users.map {
                UserProfile(
                    userID: $0.id.rawValue, householdID: $0.householdID.rawValue, name: $0.name, avatarTint: $0.avatarTint, emoji: $0.emoji,
                    locale: $0.locale)
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            context.print(String(decoding: try encoder.encode(profiles), as: UTF8.self))
            return 0
        }
        if users.isEmpty {
            context.print("no users yet; add one with `liveline users add --household NAME --name NAME`")
            return 0
        }
        context.print(row(["user", "household", "name", "tint", "emoji", "locale"]))
        for user in users {
            context.print(row(["\(user.id)", "\(user.householdID) \(user.householdName)", user.name, user.avatarTint, user.emoji, user.locale]))
        }
        return 0
    }

    static func revoke(_ arguments: [String], context: CLIContext) throws -> Int32 {
        let args = try Arguments(arguments, options: ["user", "token", "data", "database-url"])
        guard args.positionals.isEmpty else { throw CLIError("unexpected argument '\(args.positionals[0])'") }
        let userText = args.value("user")
        let token = args.value("token")
        guard (userText == nil) != (token == nil) else { throw CLIError("say whose sessions to end: --user ID or --token TOKEN (one of them)") }
        var userID: UserID?
        if let userText {
            guard let number = Int(userText), number > 0 else {
                throw CLIError("--user must be a user's id (a positive whole number), not '\(userText)'")
            }
            userID = UserID(number)
        }
        let configuration = try ServeCommand.configuration(args, context: context)
        let store = try configuration.openStore(features: context.features.map(\.featureMigrations))
        defer { store.database.close() }
        let revoked: Int
        if let userID {
            guard try store.accounts.user(id: userID) != nil else {
                context.printError("liveline users revoke: there is no user \(userID) (`liveline users list` shows them)")
                return 1
            }
            revoked = try store.accounts.deleteSessions(userID: userID)
        } else {
            revoked = try store.accounts.deleteSession(tokenHash: SHA256.hex(token!)) ? 1 : 0
        }
        context.print(#"{"revoked":\#(revoked)}"#)
        if revoked == 0 {
            context.printError("liveline users revoke: no session to end\(userID.map { " (user \($0) has none)" } ?? " (no session has that token)")")
            return 1
        }
        return 0
    }

    static func row(_ cells: [String]) -> String {
        let widths = [6, 24, 20, 10, 6, 6]
        return zip(cells, widths).map { $0.padding(toLength: max($1, $0.count), withPad: " ", startingAt: 0) }.joined(separator: " ")
            .trimmingCharacters(in: .whitespaces)
    }

    /// A trimmed, non-empty option value of at most 64 characters.
    static func text(_ args: Arguments, _ name: String, required: Bool = false) throws -> String? {
        guard let value = args.value(name)?.trimmingCharacters(in: .whitespacesAndNewlines) else {
            if required { throw CLIError("--\(name) is required") }
            return nil
        }
        guard !value.isEmpty, value.count <= 64 else { throw CLIError("--\(name) must be 1 to 64 characters") }
        return value
    }
}
