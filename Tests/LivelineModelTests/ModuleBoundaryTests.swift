import Foundation
import Testing

/// The shared model compiles unchanged for iOS 17+/macOS 14+: it imports Foundation only, and
/// ActivityKit only behind `#if canImport(ActivityKit)` (`shared-model.md`).
struct ModuleBoundaryTests {
    /// Imports of `source` that the model may not have, as "line N: import X".
    static func importViolations(in source: String) -> [String] {
        var violations: [String] = []
        var conditions: [Bool] = []  // one per open #if: does it guard ActivityKit?
        for (number, rawLine) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.trimmingCharacters(in: .whitespaces)
            if line.hasPrefix("#if") {
                conditions.append(line.hasPrefix("#if canImport(ActivityKit)"))
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
            let allowed = module == "Foundation" || (module == "ActivityKit" && conditions.contains(true))
            if !allowed { violations.append("line \(number + 1): \(line)") }
        }
        return violations
    }

    @Test func modelSourcesImportOnlyFoundation() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources/LivelineModel")
        let enumerator = try #require(FileManager.default.enumerator(atPath: folder.path))
        var files = 0
        var violations: [String] = []
        while let path = enumerator.nextObject() as? String {
            guard path.hasSuffix(".swift") else { continue }
            files += 1
            let source = try String(contentsOf: folder.appendingPathComponent(path), encoding: .utf8)
            violations += Self.importViolations(in: source).map { "\(path) \($0)" }
        }
        #expect(files > 20, "found only \(files) Swift files under \(folder.path)")
        #expect(violations.isEmpty, "LivelineModel must import Foundation only:\n\(violations.joined(separator: "\n"))")
    }

    @Test func guardRefusesOtherModulesAndUnguardedActivityKit() {
        #expect(Self.importViolations(in: "import Foundation\nimport struct Foundation.Date").isEmpty)
        #expect(Self.importViolations(in: "#if canImport(ActivityKit) && os(iOS)\nimport ActivityKit\n#endif").isEmpty)
        #expect(Self.importViolations(in: "import Glibc").count == 1)
        #expect(Self.importViolations(in: "@preconcurrency import FoundationNetworking").count == 1)
        #expect(Self.importViolations(in: "internal import CSQLite").count == 1)
        #expect(Self.importViolations(in: "import ActivityKit").count == 1)
        #expect(Self.importViolations(in: "#if os(Linux)\nimport ActivityKit\n#endif").count == 1)
    }
}
