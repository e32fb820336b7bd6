import Foundation
import Testing

/// The shared model, the built-in features' models and the client SDK compile unchanged for iOS
/// 17+/macOS 14+: the model imports Foundation only, a feature's model and the SDK Foundation and
/// the model; platform modules (ActivityKit, WidgetKit,
/// FoundationNetworking) only behind `#if canImport(…)` of themselves (`docs/sdk.md`).
struct ModuleBoundaryTests {
    /// Imports of `source` outside `allowed` that are not guarded by `#if canImport(<module>)`
    /// for one of `guarded`, as "line N: import X".
    static func importViolations(
        in source: String, allowed: Set<String> = ["Foundation"], guarded: Set<String> = ["ActivityKit"]
    ) -> [String] {
        var violations: [String] = []
        var conditions: [String?] = []  // one per open #if: the module it guards, if any
        for (number, rawLine) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#if") {
                conditions.append(guarded.first { line.hasPrefix("#if canImport(\($0))") })
                continue
            }
            if line.hasPrefix("#endif") {
                _ = conditions.popLast()
                continue
            }
            var words = line.split(separator: " ").map(String.init)
            while let first = words.first, first.hasPrefix("@") || ["public", "internal", "package", "private", "fileprivate"].contains(first) {
                words.removeFirst()
            }
            guard words.first == "import", words.count >= 2 else { continue }
            let kinds: Set<String> = ["struct", "class", "enum", "protocol", "func", "var", "let", "typealias"]
            let target = kinds.contains(words[1]) && words.count >= 3 ? words[2] : words[1]
            let module = String(target.split(separator: ".").first ?? "")
            let ok = allowed.contains(module) || (guarded.contains(module) && conditions.contains(module))
            if !ok { violations.append("line \(number + 1): \(line)") }
        }
        return violations
    }

    static func violations(inModule name: String, allowed: Set<String>, guarded: Set<String>) throws -> (files: Int, violations: [String]) {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources/\(name)")
        let enumerator = try #require(FileManager.default.enumerator(atPath: folder.path))
        var files = 0
        var violations: [String] = []
        while let path = enumerator.nextObject() as? String {
            guard path.hasSuffix(".swift") else { continue }
            files += 1
            let source = try String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)
            violations += Self.importViolations(in: source, allowed: allowed, guarded: guarded).map { "\(path) \($0)" }
        }
        return (files, violations)
    }

    @Test func modelSourcesImportOnlyFoundation() throws {
        let (files, violations) = try Self.violations(inModule: "LivelineModel", allowed: ["Foundation"], guarded: ["ActivityKit"])
        #expect(files > 20, "found only \(files) Swift files")
        #expect(violations.isEmpty, "LivelineModel must import Foundation only:\n\(violations.joined(separator: "\n"))")
    }

    @Test func clientSourcesImportOnlyFoundationAndTheModel() throws {
        let (files, violations) = try Self.violations(
            inModule: "LivelineClient", allowed: ["Foundation", "LivelineModel"], guarded: ["ActivityKit", "WidgetKit", "FoundationNetworking"]
        )
        #expect(files >= 6, "found only \(files) Swift files")
        #expect(violations.isEmpty, "LivelineClient must import Foundation and LivelineModel only:\n\(violations.joined(separator: "\n"))")
    }

    @Test(arguments: ["LivelineShoppingModel", "LivelineCookSuggestModel", "LivelineTransitModel"])
    func featureModelSourcesImportOnlyFoundationAndTheModel(_ module: String) throws {
        let (files, violations) = try Self.violations(inModule: module, allowed: ["Foundation", "LivelineModel"], guarded: ["ActivityKit"])
        #expect(files >= 4, "found only \(files) Swift files")
        #expect(violations.isEmpty, "\(module) must import Foundation and LivelineModel only:\n\(violations.joined(separator: "\n"))")
    }

    @Test func guardRefusesOtherModulesAndUnguardedActivityKit() {
        #expect(Self.importViolations(in: "import Foundation\nimport struct Foundation.Date").isEmpty)
        #expect(Self.importViolations(in: "#if canImport(ActivityKit) && os(iOS)\nimport ActivityKit\n#endif").isEmpty)
        #expect(Self.importViolations(in: "import Glibc").count == 1)
        #expect(Self.importViolations(in: "@preconcurrency import FoundationNetworking").count == 1)
        #expect(Self.importViolations(in: "internal import CSQLite").count == 1)
        #expect(Self.importViolations(in: "import ActivityKit").count == 1)
        #expect(Self.importViolations(in: "#if os(Linux)\nimport ActivityKit\n#endif").count == 1)
        #expect(Self.importViolations(in: "#if canImport(WidgetKit)\nimport ActivityKit\n#endif", guarded: ["ActivityKit", "WidgetKit"]).count == 1)
        #expect(
            Self.importViolations(in: "#if canImport(FoundationNetworking)\nimport FoundationNetworking\n#endif", guarded: ["FoundationNetworking"])
                .isEmpty)
    }
}
