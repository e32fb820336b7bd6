/// `liveline serve`: runs the server.
enum ServeCommand: CLICommand {
    static let name = "serve"
    static let summary = "run the Liveline server (HTTP API, storage, push)"
    static let help = "Usage: liveline serve [options]"
    static func run(_ arguments: [String], context: CLIContext) throws -> Int32 { 0 }
}
