import Foundation
import Liveline
import Testing

/// One contract registry, built at the root (docs/architecture.md, "The module map" and "Adding a
/// feature"): the built-in features' type names and Live Activity types appear only where the
/// built-ins are assembled, never in the engine, server, API, dashboard, cards, simulated iPhones
/// or command line.
@Suite struct BuiltInNamesTests {
    static let sources = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Sources")

    /// The source folders that may name a built-in feature or its types.
    static let assembly: Set<String> = [
        // The features themselves and their models (contract, API bodies, routes, SDK calls). The
        // generic model (`LivelineModel`) and the SDK (`LivelineClient`) are not here: they name none.
        "LivelineShopping", "LivelineCookSuggest", "LivelineTransit",
        "LivelineShoppingModel", "LivelineCookSuggestModel", "LivelineTransitModel",
        // The composition root (`Assembly.features`), the demo of the built-in features and their apps.
        "Liveline", "LivelineDemo", "LivelineApps",
        // Not the product: the benchmarks and the tests' support.
        "LivelineBench", "liveline-bench", "LivelineTestSupport",
    ]

    /// The names of the built-in features' types and of their Live Activity types.
    static var names: [String] {
        Assembly.features.map { String(describing: type(of: $0)) } + Assembly.contracts().names
    }

    @Test func theBuiltInFeaturesHoldTheThreeContractsOfTheSpec() {
        #expect(Assembly.contracts().names == ["ShoppingActivityAttributes", "CookSuggestActivityAttributes", "TripLiveActivityAttributes"])
    }

    @Test func noBuiltInNameOutsideFeatureAssembly() throws {
        let names = Self.names
        #expect(names.contains("TripLiveActivityAttributes") && names.contains("ShoppingFeature"), "\(names)")
        let files = try #require(FileManager.default.enumerator(at: Self.sources, includingPropertiesForKeys: nil))
        var inAssembly = 0
        var outside: [String] = []
        for case let file as URL in files where file.pathExtension == "swift" {
            let relative = String(file.path.dropFirst(Self.sources.path.count + 1))
            let module = String(relative.prefix { $0 != "/" })
            let text = try String(contentsOf: file, encoding: .utf8)
            for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
                for name in names where line.contains(name) {
                    if Self.assembly.contains(module) {
                        inAssembly += 1
                    } else {
                        outside.append("Sources/\(relative):\(number + 1): \(name)")
                    }
                }
            }
        }
        #expect(inAssembly > 50, "the scan found the names where the built-ins are assembled")
        #expect(
            outside.isEmpty,
            """
            built-in names outside feature assembly; take them from the registry or the features the \
            code is given, or move the code to where the built-ins are assembled (LivelineDemo, the root):
            \(outside.joined(separator: "\n"))
            """)
    }
}
