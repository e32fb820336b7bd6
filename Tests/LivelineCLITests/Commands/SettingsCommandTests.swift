import Foundation
import Liveline
import LivelineCLI
import LivelineDemo
import Testing

/// `liveline settings` and docs/configuration.md: the file is what the command prints, and every
/// `LIVELINE_*` variable the sources name has a row in the table it prints.
@Suite struct SettingsCommandTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()
    /// Source folders that are not the product: the tests' support, the benchmarks.
    static let notTheProduct: Set<String> = ["LivelineTestSupport", "LivelineBench", "liveline-bench", "liveline-probe"]

    @Test func theConfigurationReferenceIsWhatTheCodePrints() throws {
        let output = CapturedOutput()
        #expect(output.run(["settings"]) == 0)
        let printed = output.standardOutput + "\n"
        let file = Self.root.appendingPathComponent("docs/configuration.md")
        let committed = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
        let printedLines = printed.split(separator: "\n", omittingEmptySubsequences: false)
        let committedLines = committed.split(separator: "\n", omittingEmptySubsequences: false)
        let first =
            zip(printedLines, committedLines).enumerated().first { $0.element.0 != $0.element.1 }?.offset
            ?? min(printedLines.count, committedLines.count)
        let same = printed == committed
        #expect(
            same,
            """
            docs/configuration.md is not what the code's table of settings prints; write it again with
              swift run liveline settings > docs/configuration.md
            first difference, line \(first + 1):
              file: \(first < committedLines.count ? String(committedLines[first]) : "(ends)")
              code: \(first < printedLines.count ? String(printedLines[first]) : "(ends)")
            """)
    }

    @Test func unknownNamesAreTheVariablesNoRowReadsWithTheNearestRow() {
        let table = SettingsTable(features: Assembly.features)
        let unknown = table.unknownNames(in: [
            "LIVELINE_PROT": "8080", "LIVELINE_PORT": "8080", "LIVELINE_TEST_BACKEND": "postgres", "LIVELINE_ZZZ_QQQ": "1",
            "HOME": "/root",
        ])
        #expect(unknown.map(\.name) == ["LIVELINE_PROT", "LIVELINE_ZZZ_QQQ"])
        #expect(unknown.first?.suggestion == "LIVELINE_PORT")
        #expect(unknown.last?.suggestion == nil, "nothing is near enough to suggest")
    }

    @Test func theExampleEnvironmentFileSetsOnlySettings() throws {
        let rows = Set(SettingsTable(features: Assembly.features).all.map(\.name))
        let text = try String(contentsOf: Self.root.appendingPathComponent("deploy/liveline.env"), encoding: .utf8)
        let assigned = text.split(separator: "\n").compactMap { line -> String? in
            let assignment = line.hasPrefix("#") ? line.dropFirst() : line
            guard let match = assignment.prefixMatch(of: /LIVELINE_[A-Z0-9_]+=/) else { return nil }
            return String(assignment[match.range].dropLast())
        }
        #expect(assigned.count > 10, "the scan found the file's lines: \(assigned)")
        #expect(assigned.filter { !rows.contains($0) } == [], "deploy/liveline.env sets variables no setting reads")
    }

    @Test func everyVariableTheSourcesNameHasARow() throws {
        let rows = Set(SettingsTable(features: Assembly.features).all.map(\.name))
        let sources = Self.root.appendingPathComponent("Sources")
        let files = try #require(FileManager.default.enumerator(at: sources, includingPropertiesForKeys: nil))
        var named = 0
        var missing: [String] = []
        for case let file as URL in files where file.pathExtension == "swift" {
            let relative = String(file.path.dropFirst(sources.path.count + 1))
            guard let module = relative.split(separator: "/").first, !Self.notTheProduct.contains(String(module)) else { continue }
            let text = try String(contentsOf: file, encoding: .utf8)
            for (line, name) in Self.variables(inStringsOf: text) {
                named += 1
                if !rows.contains(name) { missing.append("Sources/\(relative):\(line): \(name)") }
            }
        }
        #expect(named > 100, "the scan found the variables the sources name")
        #expect(
            missing.isEmpty,
            """
            LIVELINE_* variables without a row in the table of settings (ServerConfiguration.settings, \
            APNSConfiguration.settings or a feature's settings); add one, then run
              swift run liveline settings > docs/configuration.md
            \(missing.joined(separator: "\n"))
            """)
    }

    @Test func rowsAreUniqueAndComplete() {
        let all = SettingsTable(features: Assembly.features).all
        #expect(Set(all.map(\.name)).count == all.count, "a variable listed twice")
        let commands = Set(LivelineCommandLine.builtIn.commands.map { $0.name })
        for setting in all {
            #expect(setting.name.hasPrefix("LIVELINE_"), "\(setting.name)")
            #expect(!setting.defaultValue.isEmpty && !setting.values.isEmpty && !setting.meaning.isEmpty, "\(setting.name)")
            #expect(!setting.commands.isEmpty && setting.commands.allSatisfy(commands.contains), "\(setting.name)")
        }
    }

    @Test func serveHelpListsEveryRowServeReads() {
        let output = CapturedOutput()
        #expect(output.run(["serve", "--help"]) == 0)
        for setting in SettingsTable(features: Assembly.features).all where setting.commands.contains("serve") {
            #expect(output.standardOutput.contains("    \(setting.name) "), "\(setting.name)")
        }
    }

    /// The `LIVELINE_*` names inside the string literals of Swift source `text` (not its comments
    /// nor its compilation conditions), with their line numbers. A name ending in `_` is a prefix
    /// (`LIVELINE_APNS_*`), not a variable.
    static func variables(inStringsOf text: String) -> [(line: Int, name: String)] {
        var found: [(Int, String)] = []
        var inMultiline = false
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let delimiters = line.components(separatedBy: "\"\"\"").count - 1
            var strings: [Substring] = []
            if inMultiline || delimiters > 0 {
                strings = [line]
            } else if !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                strings = line.matches(of: /"(?:[^"\\]|\\.)*"/).map { line[$0.range] }
            }
            if delimiters % 2 == 1 { inMultiline.toggle() }
            for string in strings {
                for match in string.matches(of: /LIVELINE_[A-Z0-9_]+/) where !string[match.range].hasSuffix("_") {
                    found.append((index + 1, String(string[match.range])))
                }
            }
        }
        return found
    }
}
