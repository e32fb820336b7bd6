import Foundation
import LivelineAPI
import Synchronization

/// The encoded `/openapi.json` of the current UTC day: made again when the day changes, since
/// the contracts' dates are documented as the range the payload check accepts that day
/// (`DateRules.plausibleContentDates`).
final class OpenAPIDocumentCache: Sendable {
    let version: String
    let features: [APIDocumentationPart]
    let clock: @Sendable () -> Date
    let allowInsecureWebPush: Bool
    private let current = Mutex<(day: Int, bytes: [UInt8])?>(nil)

    init(version: String, features: [APIDocumentationPart], clock: @escaping @Sendable () -> Date, allowInsecureWebPush: Bool = false) {
        self.version = version
        self.features = features
        self.clock = clock
        self.allowInsecureWebPush = allowInsecureWebPush
    }

    /// The document for now's day.
    func bytes() throws -> [UInt8] {
        let now = clock()
        let day = Int((now.timeIntervalSinceReferenceDate / 86_400).rounded(.down))
        if let kept = current.withLock({ $0 }), kept.day == day { return kept.bytes }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        let bytes = try Array(
            encoder.encode(OpenAPIDocument.build(version: version, features: features, now: now, allowInsecureWebPush: allowInsecureWebPush)))
        current.withLock { $0 = (day, bytes) }
        return bytes
    }
}
