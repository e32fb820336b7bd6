// A declaration stub for type-checking only (`Tests/AppleGlue/Package.swift`): never shipped.

/// What a Live Activity shows: the static attributes, and in `ContentState` what changes
/// (iOS 16.1+). Related Apple documentation:
/// https://developer.apple.com/documentation/activitykit/activityattributes
@available(iOS 16.1, *)
public protocol ActivityAttributes: Decodable, Encodable {
    /// The dynamic content of a Live Activity. Related Apple documentation:
    /// https://developer.apple.com/documentation/activitykit/activityattributes/contentstate
    associatedtype ContentState: Decodable, Encodable, Hashable
}
