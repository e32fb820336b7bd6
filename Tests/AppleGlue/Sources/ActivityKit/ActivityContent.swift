import Foundation

// A declaration stub for type-checking only (`Tests/AppleGlue/Package.swift`): never shipped.

/// A Live Activity's state with its stale date and relevance (iOS 16.2+). Related Apple
/// documentation: https://developer.apple.com/documentation/activitykit/activitycontent
@available(iOS 16.2, *)
public struct ActivityContent<State> where State: Decodable, State: Encodable, State: Hashable {
    /// https://developer.apple.com/documentation/activitykit/activitycontent/state
    public let state: State
    /// https://developer.apple.com/documentation/activitykit/activitycontent/staledate
    public let staleDate: Date?
    /// https://developer.apple.com/documentation/activitykit/activitycontent/relevancescore
    public let relevanceScore: Double

    /// Related Apple documentation:
    /// https://developer.apple.com/documentation/activitykit/activitycontent/init(state:staledate:relevancescore:)
    public init(state: State, staleDate: Date?, relevanceScore: Double = 0.0) {
        fatalError("stub: type-checking only")
    }
}
