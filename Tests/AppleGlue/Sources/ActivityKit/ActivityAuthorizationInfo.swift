// A declaration stub for type-checking only (`Tests/AppleGlue/Package.swift`): never shipped.

/// Whether the person allows the app's Live Activities and their frequent updates (iOS 16.1+;
/// `frequentPushesEnabled` 16.2+). Related Apple documentation:
/// https://developer.apple.com/documentation/activitykit/activityauthorizationinfo
@available(iOS 16.1, *)
public final class ActivityAuthorizationInfo {
    /// Related Apple documentation: https://developer.apple.com/documentation/activitykit/activityauthorizationinfo/init()
    public init() {}

    /// Related Apple documentation:
    /// https://developer.apple.com/documentation/activitykit/activityauthorizationinfo/areactivitiesenabled
    public final var areActivitiesEnabled: Bool { fatalError("stub: type-checking only") }

    /// Related Apple documentation:
    /// https://developer.apple.com/documentation/activitykit/activityauthorizationinfo/frequentpushesenabled
    @available(iOS 16.2, *)
    public final var frequentPushesEnabled: Bool { fatalError("stub: type-checking only") }

    /// Related Apple documentation:
    /// https://developer.apple.com/documentation/activitykit/activityauthorizationinfo/activityenablementupdates-swift.property
    public final var activityEnablementUpdates: ActivityEnablementUpdates { fatalError("stub: type-checking only") }

    /// The person's "Live Activities" setting as it changes. Related Apple documentation:
    /// https://developer.apple.com/documentation/activitykit/activityauthorizationinfo/activityenablementupdates-swift.struct
    public struct ActivityEnablementUpdates: AsyncSequence {
        /// Related Apple documentation: https://developer.apple.com/documentation/activitykit/activityauthorizationinfo/activityenablementupdates-swift.struct/element
        public typealias Element = Bool

        /// Related Apple documentation:
        /// https://developer.apple.com/documentation/activitykit/activityauthorizationinfo/activityenablementupdates-swift.struct/makeasynciterator()
        public func makeAsyncIterator() -> Iterator { fatalError("stub: type-checking only") }

        /// Related Apple documentation: https://developer.apple.com/documentation/activitykit/activityauthorizationinfo/activityenablementupdates-swift.struct/iterator
        public struct Iterator: AsyncIteratorProtocol, Sendable {
            /// Related Apple documentation: https://developer.apple.com/documentation/activitykit/activityauthorizationinfo/activityenablementupdates-swift.struct/iterator/next()
            public mutating func next() async -> Bool? { fatalError("stub: type-checking only") }
        }
    }
}
