import Foundation
import LivelineAPI
import LivelineModel
import Synchronization

/// The encoded `/openapi.json` of the current UTC day: made again when the day changes, since
/// the contracts' dates are documented as the range the payload check accepts that day
/// (`DateRules.plausibleContentDates`), and when a contract was loaded at run time. Its component schemas are also what a refused request
/// body is described with (``RequestSchema``).
final class OpenAPIDocumentCache: Sendable {
    let version: String
    let features: [APIDocumentationPart]
    let registry: ContractRegistry
    let clock: @Sendable () -> Date
    let allowInsecureWebPush: Bool
    /// The features' names, each a widget kind a `widgets` token may serve.
    let featureNames: [String]
    private let current = Mutex<(day: Int, generation: Int, bytes: [UInt8], schemas: [String: JSONValue])?>(nil)

    init(
        version: String, features: [APIDocumentationPart], registry: ContractRegistry, clock: @escaping @Sendable () -> Date,
        allowInsecureWebPush: Bool = false, featureNames: [String] = []
    ) {
        self.featureNames = featureNames
        self.version = version
        self.features = features
        self.registry = registry
        self.clock = clock
        self.allowInsecureWebPush = allowInsecureWebPush
    }

    /// The document for now's day.
    func bytes() throws -> [UInt8] { try document().bytes }

    /// The document's `components.schemas` for now's day, by name.
    func schemas() throws -> [String: JSONValue] { try document().schemas }

    private func document() throws -> (bytes: [UInt8], schemas: [String: JSONValue]) {
        let now = clock()
        let day = Int((now.timeIntervalSinceReferenceDate / 86_400).rounded(.down))
        let generation = registry.loaded.generation
        if let kept = current.withLock({ $0 }), kept.day == day, kept.generation == generation { return (kept.bytes, kept.schemas) }
        let document = OpenAPIDocument.build(
            version: version, features: features, registry: registry, now: now, allowInsecureWebPush: allowInsecureWebPush,
            featureNames: featureNames)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let bytes = try Array(encoder.encode(document))
        var schemas: [String: JSONValue] = [:]
        if case .object(let components)? = document.objectValue?["components"], case .object(let named)? = components["schemas"] {
            schemas = named
        }
        current.withLock { $0 = (day, generation, bytes, schemas) }
        return (bytes, schemas)
    }
}
