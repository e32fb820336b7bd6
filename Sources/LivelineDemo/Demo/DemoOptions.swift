import Foundation
import LivelineCLI

/// What `liveline demo` was asked for on its command line.
struct DemoOptions: Sendable, Equatable {
    /// The HTTP port (0: a free one).
    var port = 8080
    /// The data folder to keep; nil: a throw-away one, deleted on exit.
    var data: URL?
    /// Demo seconds per real second.
    var speed = 10.0
    /// Stop by itself after this many seconds; nil: run until SIGINT or SIGTERM.
    var duration: Int?

    /// The fastest the demo runs: at 100× an activity's 8 hours last under 5 real minutes; faster,
    /// the phones would end the cards by themselves between two steps of a story.
    static let fastest = 100.0

    /// Parses the arguments after `demo`; a mistake is a ``CLIError`` that names the option.
    static func parse(_ arguments: [String]) throws -> DemoOptions {
        let args = try Arguments(arguments, options: ["port", "data", "speed", "for"])
        guard args.positionals.isEmpty else { throw CLIError("unexpected argument '\(args.positionals[0])'") }
        var options = DemoOptions()
        if let port = try args.integer("port", in: 0...65535) { options.port = port }
        if let data = args.value("data") {
            guard !data.isEmpty else { throw CLIError("--data must name a folder") }
            options.data = URL(fileURLWithPath: data)
        }
        if let text = args.value("speed") {
            let trimmed = text.hasSuffix("x") || text.hasSuffix("×") ? String(text.dropLast()) : text
            guard let speed = Double(trimmed), speed.isFinite, speed > 0, speed <= fastest else {
                throw CLIError("--speed must be a number greater than 0 and at most \(Int(fastest)) (e.g. 10 or 2.5), not '\(text)'")
            }
            options.speed = speed
        }
        if args.value("for") != nil {
            do {
                options.duration = try args.integer("for", in: 1...31_536_000)
            } catch {
                throw CLIError("--for must be a whole number of seconds, at least 1, not '\(args.value("for") ?? "")'")
            }
        }
        return options
    }
}
