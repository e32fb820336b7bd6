import LivelineAPI

extension SettingsTable {
    /// The table as docs/configuration.md holds it: a header saying how the file is made, then a
    /// Markdown table per section (variable, default, values, meaning, commands).
    public var markdown: String {
        let header = """
            # Configuration

            Every `LIVELINE_*` environment variable Liveline reads: its default, the values it takes,
            what it does and the `liveline` commands it changes. A value outside its values is refused
            at start, with a message naming the variable and what it expects. Where a command has an
            option for a setting (`serve --port`, `push --key`, …), the option wins. A `LIVELINE_*`
            name no row reads (a typo, or a setting of a newer build) is named by `liveline serve`
            at start, with the nearest setting, and ignored.

            This file is generated: `liveline settings` prints it from the table of settings the code
            reads (`ServerConfiguration.settings`, `APNSConfiguration.settings` and each feature's
            `settings`). Change a row there, then run
            `swift run liveline settings > docs/configuration.md`; a test (`SettingsCommandTests`)
            fails while this file and the code disagree.
            """
        let tables = sections.map { section in
            "## \(section.title)\n\n| variable | default | values | meaning | commands |\n| --- | --- | --- | --- | --- |\n"
                + section.settings.map { setting in
                    let cells = [
                        "`\(setting.name)`", setting.defaultValue, setting.values, setting.meaning,
                        setting.commands.map { "`\($0)`" }.joined(separator: ", "),
                    ]
                    return "| " + cells.map(Self.cell).joined(separator: " | ") + " |"
                }.joined(separator: "\n")
        }
        return ([header] + tables).joined(separator: "\n\n")
    }

    /// Text in a table cell: a `|` would end the cell.
    private static func cell(_ text: String) -> String {
        text.replacingOccurrences(of: "|", with: "\\|")
    }
}
