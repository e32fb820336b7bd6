/// `liveline users`: household and user administration.
enum UsersCommand: CLICommand {
    static let name = "users"
    static let summary = "add and list users and households"
    static let help = "Usage: liveline users add|list [options]"
    static func run(_ arguments: [String], context: CLIContext) throws -> Int32 { 0 }
}
