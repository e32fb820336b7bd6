/// One `LIVELINE_*` environment variable as people read about it: its name, its default, the
/// values it takes, what it does and the commands it changes.
///
/// The server's settings, the APNs ones and each feature's (``Feature/settings``) are rows of one
/// table: the configuration is read from it, and `liveline serve --help` and
/// `docs/configuration.md` are printed from it (docs/configuration.md). A refusal of a bad value
/// says ``values`` in the same words (``refusal(_:)``).
public struct Setting: Sendable, Hashable {
    /// The variable: `LIVELINE_…`.
    public var name: String
    /// The default as people read it: a value (`8080`) or what happens when it is unset
    /// (`generated once, kept in the data folder`).
    public var defaultValue: String
    /// The values it takes, in the words of its refusal (`a whole number from 0 to 65535`,
    /// `stdout, stderr or off`).
    public var values: String
    /// What it does.
    public var meaning: String
    /// The `liveline` commands whose behaviour it changes.
    public var commands: [String]
    /// A whole-number setting's range (``values`` says it); nil for any other.
    public var range: ClosedRange<Int>?

    /// A setting whose values are said in words.
    public init(_ name: String, default defaultValue: String, values: String, meaning: String, commands: [String] = ["serve"]) {
        self.name = name
        self.defaultValue = defaultValue
        self.values = values
        self.meaning = meaning
        self.commands = commands
        self.range = nil
    }

    /// A whole-number setting within `range`.
    public init(_ name: String, default defaultValue: String, range: ClosedRange<Int>, meaning: String, commands: [String] = ["serve"]) {
        self.init(
            name, default: defaultValue, values: "a whole number from \(range.lowerBound) to \(range.upperBound)", meaning: meaning,
            commands: commands)
        self.range = range
    }

    /// A setting that is one of `words`, said as "a, b or c".
    public init(_ name: String, oneOf words: [String], default defaultValue: String, meaning: String, commands: [String] = ["serve"]) {
        self.init(name, default: defaultValue, values: Self.list(words), meaning: meaning, commands: commands)
    }

    /// What a bad `text` is told: "`NAME` must be ``values``, not '`text`'".
    public func refusal(_ text: String) -> String {
        "\(name) must be \(values), not '\(text)'"
    }

    /// The whole number `text` says when it is within ``range``; nil otherwise.
    public func wholeNumber(_ text: String) -> Int? {
        guard let range else { preconditionFailure("\(name) is not a whole-number setting") }
        guard let value = Int(text), range.contains(value) else { return nil }
        return value
    }

    /// Words as people list them: "a", "a or b", "a, b or c".
    static func list(_ words: [String]) -> String {
        guard let last = words.last else { return "" }
        let head = words.dropLast()
        return head.isEmpty ? last : head.joined(separator: ", ") + " or " + last
    }
}
