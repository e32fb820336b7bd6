/// A small parser for `--name value`, `--name=value`, boolean `--flag`s and positionals.
///
/// Every option a command accepts is declared up front, so an unknown or misspelt option is an
/// error that names it instead of being ignored.
public struct Arguments: Sendable {
    public private(set) var values: [String: [String]] = [:]
    public private(set) var flags: Set<String> = []
    public private(set) var positionals: [String] = []

    /// Parses `arguments`; `options` take a value, `flags` take none. `--help`/`-h` is a flag always.
    public init(_ arguments: [String], options: Set<String> = [], flags allowedFlags: Set<String> = []) throws {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--" {
                positionals.append(contentsOf: arguments[index...])
                break
            }
            if argument == "-h" || argument == "--help" {
                flags.insert("help")
                continue
            }
            guard argument.hasPrefix("--"), argument.count > 2 else {
                positionals.append(argument)
                continue
            }
            var name = String(argument.dropFirst(2))
            var inlineValue: String?
            if let equals = name.firstIndex(of: "=") {
                inlineValue = String(name[name.index(after: equals)...])
                name = String(name[..<equals])
            }
            if options.contains(name) {
                if let inlineValue {
                    values[name, default: []].append(inlineValue)
                } else if index < arguments.count {
                    values[name, default: []].append(arguments[index])
                    index += 1
                } else {
                    throw CLIError("option --\(name) needs a value")
                }
            } else if allowedFlags.contains(name) {
                if inlineValue != nil { throw CLIError("option --\(name) takes no value") }
                flags.insert(name)
            } else {
                throw CLIError("unknown option --\(name)")
            }
        }
    }

    /// The last value given for `--name`, if any.
    public func value(_ name: String) -> String? { values[name]?.last }

    /// `--name` parsed as an integer in `range`, or nil when absent.
    public func integer(_ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text), range.contains(number) else {
            throw CLIError("--\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return number
    }

    /// Whether the flag `--name` was given.
    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// Whether `--help` or `-h` was given.
    public var wantsHelp: Bool { flags.contains("help") }
}
