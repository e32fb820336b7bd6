import LivelineAPI

/// One row of the table a configuration is read from: a ``Setting`` and how its text becomes part
/// of the configuration.
///
/// `ServerConfiguration.fromEnvironment` and `APNSConfiguration.fromEnvironment` are loops over
/// their tables, and `liveline serve --help` and docs/configuration.md are printed from the same
/// rows, so what people read is what the code does (docs/configuration.md). A bad value is a
/// ``ConfigurationError`` in the row's words (``Setting/refusal(_:)``).
public struct SettingReader<Configuration>: Sendable {
    /// What people read about the variable.
    public let setting: Setting
    /// Whether an empty value counts as unset; else it is read as any other (and mostly refused).
    let emptyIsUnset: Bool
    /// Sets the configuration from the variable's text, or throws the row's refusal.
    let apply: @Sendable (inout Configuration, String, Setting) throws -> Void

    init(_ setting: Setting, emptyIsUnset: Bool, apply: @escaping @Sendable (inout Configuration, String, Setting) throws -> Void) {
        self.setting = setting
        self.emptyIsUnset = emptyIsUnset
        self.apply = apply
    }

    /// Applies the variable's value in `environment`, if it has one, to `configuration`.
    func read(_ environment: [String: String], into configuration: inout Configuration) throws {
        guard let text = environment[setting.name], !(emptyIsUnset && text.isEmpty) else { return }
        try apply(&configuration, text, setting)
    }
}

extension SettingReader {
    /// A whole number within `range`.
    static func wholeNumber(
        _ name: String, default defaultValue: String, in range: ClosedRange<Int>, meaning: String, commands: [String] = ["serve"],
        emptyIsUnset: Bool = false, set: @escaping @Sendable (inout Configuration, Int) -> Void
    ) -> SettingReader {
        let setting = Setting(name, default: defaultValue, range: range, meaning: meaning, commands: commands)
        return SettingReader(setting, emptyIsUnset: emptyIsUnset) { configuration, text, setting in
            guard let value = setting.wholeNumber(text) else { throw ConfigurationError(setting.refusal(text)) }
            set(&configuration, value)
        }
    }

    /// One of a few words, each standing for a value; the words are listed in `options`' order.
    static func oneOf<Value: Sendable>(
        _ name: String, _ options: [(word: String, value: Value)], default defaultValue: String, meaning: String,
        commands: [String] = ["serve"], emptyIsUnset: Bool = false, set: @escaping @Sendable (inout Configuration, Value) -> Void
    ) -> SettingReader {
        let setting = Setting(name, oneOf: options.map(\.word), default: defaultValue, meaning: meaning, commands: commands)
        return SettingReader(setting, emptyIsUnset: emptyIsUnset) { configuration, text, setting in
            guard let value = options.first(where: { $0.word == text })?.value else { throw ConfigurationError(setting.refusal(text)) }
            set(&configuration, value)
        }
    }

    /// Text taken as it is (a host, a path); an empty value counts as unset.
    static func text(
        _ name: String, default defaultValue: String, values: String, meaning: String, commands: [String] = ["serve"],
        set: @escaping @Sendable (inout Configuration, String) -> Void
    ) -> SettingReader {
        let setting = Setting(name, default: defaultValue, values: values, meaning: meaning, commands: commands)
        return SettingReader(setting, emptyIsUnset: true) { configuration, text, _ in set(&configuration, text) }
    }
}
