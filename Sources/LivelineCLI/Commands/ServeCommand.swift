import Dispatch
import Foundation
import LivelineServer

/// `liveline serve`: runs the server until SIGINT or SIGTERM, then shuts down gracefully.
enum ServeCommand: CLICommand {
    static let name = "serve"
    static let summary = "run the Liveline server (HTTP API, storage, push)"
    static let help = """
        Usage: liveline serve [--port N] [--host ADDRESS] [--data DIR]

        Runs the server on its embedded defaults: HTTP on port 8080, SQLite in ./liveline-data.
        On SIGINT or SIGTERM it stops accepting requests, lets in-flight ones finish and exits.

        Options:
          --port N        port to listen on; 0 picks a free port and prints it  [LIVELINE_PORT, 8080]
          --host ADDRESS  IPv4 address to listen on                              [LIVELINE_HOST, 0.0.0.0]
          --data DIR      data folder (database, generated admin key)           [LIVELINE_DATA_DIR, ./liveline-data]

        Environment:
        \(ServerConfiguration.environmentHelp.map { "  " + $0.0.padding(toLength: 27, withPad: " ", startingAt: 0) + $0.1 }.joined(separator: "\n"))

        The admin key of the /v1 API is LIVELINE_ADMIN_KEY; when unset, one is generated on the
        first start, printed once and kept in DIR/admin-key (mode 0600).
        """

    static func run(_ arguments: [String], context: CLIContext) throws -> Int32 {
        let args = try Arguments(arguments, options: ["port", "host", "data"])
        guard args.positionals.isEmpty else { throw CLIError("unexpected argument '\(args.positionals[0])'") }
        var configuration = try configuration(args, context: context)
        if let port = try args.integer("port", in: 0...65535) { configuration.port = port }
        if let host = args.value("host") { configuration.host = host }

        let application = try buildApplication(configuration)
        try application.start()
        let address = configuration.host == "0.0.0.0"
            ? "http://0.0.0.0:\(application.port) (all interfaces; locally http://127.0.0.1:\(application.port))"
            : "http://\(configuration.host):\(application.port)"
        context.printError("liveline \(Application.version): listening on \(address), data in \(configuration.dataDirectory.path)")
        if application.adminKeyGenerated {
            context.printError("admin key for the /v1 API (shown once; kept in \(configuration.dataDirectory.appendingPathComponent("admin-key").path)):")
            context.printError("  \(application.adminKey)")
        }

        let stop = DispatchSemaphore(value: 0)
        let sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stop.signal() }
            source.resume()
            return source
        }
        stop.wait()
        context.printError("liveline: shutting down (finishing in-flight requests)")
        application.shutdown()
        sources.forEach { $0.cancel() }
        context.printError("liveline: stopped")
        return 0
    }

    /// The environment's configuration with `--data` applied (shared with `users`).
    static func configuration(_ args: Arguments, context: CLIContext) throws -> ServerConfiguration {
        var configuration: ServerConfiguration
        do {
            configuration = try ServerConfiguration.fromEnvironment(context.environment)
        } catch let error as ConfigurationError {
            throw CLIError(error.message)
        }
        if let data = args.value("data") { configuration.dataDirectory = URL(fileURLWithPath: data) }
        return configuration
    }
}
