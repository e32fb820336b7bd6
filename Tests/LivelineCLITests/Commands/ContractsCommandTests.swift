import Foundation
import LivelineCLI
import Testing

/// `liveline contracts list|show|check`, run in-process with captured output.
struct ContractsCommandTests {
    static let examples = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("examples/payloads")
    /// 2026-06-18 08:00 UTC, so the examples' dates are checked against a fixed clock.
    static let now = "1781784000"

    /// Writes `text` to a fresh temporary file and returns its path.
    static func temporaryFile(_ text: String) throws -> String {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-\(UUID().uuidString).json")
        try Data(text.utf8).write(to: url)
        return url.path
    }

    static func example(_ name: String) throws -> String {
        try String(contentsOf: examples.appendingPathComponent(name), encoding: .utf8)
    }

    @Test func listPrintsTheTypeNames() {
        let output = CapturedOutput()
        #expect(output.run(["contracts", "list"]) == 0)
        #expect(output.standardOutput == "ShoppingActivityAttributes\nCookSuggestActivityAttributes\nTripLiveActivityAttributes")
    }

    @Test func showPrintsKeysTypesOptionalityAndAnExamplePayload() {
        let output = CapturedOutput()
        #expect(output.run(["contracts", "show", "ShoppingActivityAttributes"]) == 0)
        let text = output.standardOutput
        #expect(text.contains("ShoppingActivityAttributes (contract version 1)"))
        #expect(text.range(of: #"lastItem\s+String\?\s+optional"#, options: .regularExpression) != nil)
        #expect(text.range(of: #"rev\s+Int\s+required"#, options: .regularExpression) != nil)
        #expect(text.contains("OpenItem:"))
        #expect(text.contains("\"attributes-type\" : \"ShoppingActivityAttributes\""))
        #expect(text.contains("\"lastItem\" : \"Milch\""))
    }

    @Test func showUnknownTypeIsAUsageErrorWithASuggestion() {
        let output = CapturedOutput()
        #expect(output.run(["contracts", "show", "TripAttributes"]) == 2)
        #expect(output.standardError.contains("unknown contract type 'TripAttributes'"))
    }

    @Test func everyExamplePayloadIsAccepted() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.examples.path).filter { $0.hasSuffix(".json") }
        #expect(files.count >= 3)
        for file in files {
            let output = CapturedOutput()
            let path = Self.examples.appendingPathComponent(file).path
            #expect(output.run(["contracts", "check", path, "--now", Self.now]) == 0, "\(file): \(output.standardOutput)")
            #expect(output.standardOutput.contains("\(path): accepted"))
        }
    }

    @Test func examplesAreAcceptedWithTheRealClockToo() throws {
        let output = CapturedOutput()
        let path = Self.examples.appendingPathComponent("shopping-update.json").path
        #expect(output.run(["contracts", "check", path, "--type", "ShoppingActivityAttributes"]) == 0, "\(output.standardOutput)")
    }

    /// A broken copy of an example, and what the explanation must name.
    struct Breakage: Sendable, CustomTestStringConvertible {
        var name: String
        var file: String
        var replace: String
        var with: String
        var expected: [String]
        var testDescription: String { name }
    }

    static let breakages: [Breakage] = [
        Breakage(
            name: "renamed key", file: "trip-start.json", replace: #""nextStop":"#, with: #""next_stop":"#,
            expected: ["aps.content-state.nextStop", "missingKey", "'next_stop'", "Did you mean 'nextStop'?"]),
        Breakage(
            name: "required key removed", file: "shopping-update.json", replace: #""rev": 31 "#, with: #""ended2": null "#,
            expected: ["aps.content-state.rev", "is missing", "requires rev, a whole number (Int)"]),
        Breakage(
            name: "Date as ISO string", file: "trip-start.json", replace: "803461320", with: #""2026-06-18T07:42:00Z""#,
            expected: ["aps.content-state.nextStopTime", "dateAsString", "seconds since 2001-01-01", "send 803461320"]),
        Breakage(
            name: "Date as UNIX seconds", file: "trip-start.json", replace: "803461320", with: "1781768520",
            expected: ["aps.content-state.nextStopTime", "implausibleDate", "2057-06-18", "looks like UNIX seconds"]),
        Breakage(
            name: "5000 bytes of content state", file: "cooksuggest-update.json", replace: #""3 Vorschläge sind da""#,
            with: "\"" + String(repeating: "x", count: 5000) + "\"",
            expected: ["bodyTooLarge", "activityDataTooLarge", "over the 4096-byte limit", "aps.content-state.statusLabel (50"]),
    ]

    @Test(arguments: breakages)
    func brokenCopyIsRejectedWithAMessageNamingTheProblem(_ breakage: Breakage) throws {
        let original = try Self.example(breakage.file)
        #expect(original.contains(breakage.replace))
        let path = try Self.temporaryFile(original.replacingOccurrences(of: breakage.replace, with: breakage.with))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let output = CapturedOutput()
        #expect(output.run(["contracts", "check", path, "--now", Self.now]) == 1)
        #expect(output.standardOutput.contains("\(path): rejected"))
        for text in breakage.expected {
            #expect(output.standardOutput.contains(text), "missing '\(text)' in:\n\(output.standardOutput)")
        }
    }

    @Test func everyProblemIsExplained() throws {
        let broken = try Self.example("trip-start.json")
            .replacingOccurrences(of: #""nextStop":"#, with: #""next_stop":"#)
            .replacingOccurrences(of: "803461320", with: "1781768520")
            .replacingOccurrences(of: "1781768280", with: "1781768280000")
        let path = try Self.temporaryFile(broken)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let output = CapturedOutput()
        #expect(output.run(["contracts", "check", path, "--now", Self.now]) == 1)
        let text = output.standardOutput
        #expect(text.contains("rejected (3 errors, 1 warning)"))
        for code in ["missingKey", "implausibleDate", "dateInMilliseconds", "unknownKey"] {
            #expect(text.contains("[\(code)]"))
        }
    }

    @Test func typeMayBeOmittedOnlyWhenThePayloadNamesIt() throws {
        let update =
            #"{"aps": {"timestamp": 1781769000, "event": "update", "content-state": {"currentStop": "A", "nextStop": "B", "nextStopTime": 803461320, "remainingTime": 60, "delay": 0, "occupancy": "low", "phase": "inProgress", "progress": 0.5}}}"#
        let path = try Self.temporaryFile(update)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let withoutType = CapturedOutput()
        #expect(withoutType.run(["contracts", "check", path, "--now", Self.now]) == 2)
        #expect(withoutType.standardError.contains("--type"))
        let withType = CapturedOutput()
        #expect(withType.run(["contracts", "check", path, "--type", "TripLiveActivityAttributes", "--now", Self.now]) == 0)
        #expect(withType.standardOutput.contains("accepted"))
    }

    @Test func broadcastFlagRaisesTheLimitTo5120() throws {
        let title = String(repeating: "y", count: 4300)
        let update =
            #"{"aps": {"timestamp": 1781769000, "event": "update", "alert": {"title": "\#(title)"}, "content-state": {"currentStop": "A", "nextStop": "B", "nextStopTime": 803461320, "remainingTime": 60, "delay": 0, "occupancy": "low", "phase": "inProgress", "progress": 0.5}}}"#
        let path = try Self.temporaryFile(update)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let device = CapturedOutput()
        #expect(device.run(["contracts", "check", path, "--type", "TripLiveActivityAttributes", "--now", Self.now]) == 1)
        #expect(device.standardOutput.contains("aps.alert"))
        let broadcast = CapturedOutput()
        #expect(broadcast.run(["contracts", "check", path, "--type", "TripLiveActivityAttributes", "--broadcast", "--now", Self.now]) == 0)
        #expect(broadcast.standardOutput.contains("of 5120 bytes"))
    }

    @Test func invalidJSONIsRejected() throws {
        let path = try Self.temporaryFile(#"{"aps": {"event": "start",,}}"#)
        defer { try? FileManager.default.removeItem(atPath: path) }
        let output = CapturedOutput()
        #expect(output.run(["contracts", "check", path, "--type", "TripLiveActivityAttributes"]) == 1)
        #expect(output.standardOutput.contains("[invalidJSON]"))
    }

    @Test(arguments: [
        ["contracts"],
        ["contracts", "frobnicate"],
        ["contracts", "show"],
        ["contracts", "check"],
        ["contracts", "check", "/nonexistent/liveline-payload.json"],
        ["contracts", "check", "x.json", "--type", "Nope"],
        ["contracts", "check", "x.json", "--now", "yesterday"],
        ["contracts", "list", "--broadcast"],
        ["contracts", "check", "x.json", "--colour"],
    ])
    func usageErrorsExitWithTwo(_ arguments: [String]) {
        let output = CapturedOutput()
        #expect(output.run(arguments) == 2)
        #expect(output.standardError.hasPrefix("liveline contracts: "))
    }

    @Test func commandIsListedAndHasHelp() {
        let usage = CapturedOutput()
        #expect(usage.run(["--help"]) == 0)
        #expect(usage.standardOutput.contains("contracts"))
        let help = CapturedOutput()
        #expect(help.run(["contracts", "--help"]) == 0)
        #expect(help.standardOutput.contains("Exit codes: 0 accepted"))
    }
}
