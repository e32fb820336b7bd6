import LivelineAPI
import LivelineModel
import LivelineServer

/// Every `LIVELINE_*` variable the code reads, as one table in sections: the server's rows, the
/// APNs ones, then each feature's (the features a command serves, ``CLIContext/features``).
///
/// The configuration is read from these rows (`ServerConfiguration.settings`,
/// `APNSConfiguration.settings`, each feature's `settings`); `liveline serve --help` and
/// `liveline settings` (docs/configuration.md) print them, and a test holds the file to them.
public struct SettingsTable: Sendable {
    /// The features whose settings follow the server's and the APNs ones.
    public var features: [any Feature]

    public init(features: [any Feature]) {
        self.features = features
    }

    /// Rows under one heading.
    public struct Section: Sendable {
        public var title: String
        public var settings: [Setting]
    }

    /// The sections, in reading order.
    public var sections: [Section] {
        let apns = APNSConfiguration.settings.map(\.setting)
        let apnsNames = Set(apns.map(\.name))
        // LIVELINE_APNS_ENVIRONMENT is read by both tables (the server's default for tokens
        // registered without one, and the APNs environment); it is listed once, with APNs.
        let server = ServerConfiguration.settings.map(\.setting).filter { !apnsNames.contains($0.name) }
        return [Section(title: "Server", settings: server), Section(title: "APNs", settings: apns)]
            + features.map { Section(title: "Feature \($0.name)", settings: $0.settings) }
    }

    /// Every row, once each.
    public var all: [Setting] { sections.flatMap(\.settings) }

    /// The `LIVELINE_*` names in `environment` that no row reads, each with the row it most
    /// likely meant; the tests' own `LIVELINE_TEST_*` are not settings and are left out.
    public func unknownNames(in environment: [String: String]) -> [(name: String, suggestion: String?)] {
        let known = all.map(\.name)
        let names = Set(known)
        return environment.keys.filter { $0.hasPrefix("LIVELINE_") && !$0.hasPrefix("LIVELINE_TEST_") && !names.contains($0) }.sorted()
            .map { ($0, NameSuggestion.closest(to: $0, among: known).first) }
    }

    /// The environment part of `liveline <command> --help`: the rows that change `command`, a
    /// heading per section, the meaning wrapped beside the name.
    func help(for command: String) -> String {
        let sections = sections.map { Section(title: $0.title, settings: $0.settings.filter { $0.commands.contains(command) }) }
        let width = sections.flatMap(\.settings).map(\.name.count).max() ?? 0
        return sections.filter { !$0.settings.isEmpty }.map { section in
            "  \(section.title):\n"
                + section.settings.map { setting in
                    let text = "\(setting.meaning) [default \(setting.defaultValue); \(setting.values)]"
                    let lines = Self.wrap(text, width: max(40, 114 - width))
                    let indent = String(repeating: " ", count: width + 6)
                    return "    " + setting.name.padding(toLength: width, withPad: " ", startingAt: 0) + "  "
                        + lines.joined(separator: "\n" + indent)
                }.joined(separator: "\n")
        }.joined(separator: "\n")
    }

    /// `text` in lines of at most `width` characters, broken between words (a longer word has a
    /// line of its own).
    static func wrap(_ text: String, width: Int) -> [String] {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty, line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        if !line.isEmpty { lines.append(line) }
        return lines
    }
}
