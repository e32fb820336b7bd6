import Foundation

// A declaration stub for type-checking only (`Tests/AppleGlue/Package.swift`): never shipped.

/// One Live Activity of `Attributes`: start, update and end it, and follow its token and state
/// (iOS 16.1+). Related Apple documentation: https://developer.apple.com/documentation/activitykit/activity
@available(iOS 16.1, *)
public final class Activity<Attributes> where Attributes: ActivityAttributes {
    /// Related Apple documentation: https://developer.apple.com/documentation/activitykit/activity/contentstate-swift.typealias
    public typealias ContentState = Attributes.ContentState

    /// Related Apple documentation: https://developer.apple.com/documentation/activitykit/activity/id
    public final let id: String
    /// Related Apple documentation: https://developer.apple.com/documentation/activitykit/activity/attributes
    public final let attributes: Attributes

    private init() { fatalError("stub: type-checking only") }

    /// The app's running activities of `Attributes`. Related Apple documentation:
    /// https://developer.apple.com/documentation/activitykit/activity/activities
    public static var activities: [Activity<Attributes>] { fatalError("stub: type-checking only") }

    /// Activities as they start (also those started by a push). Related Apple documentation:
    /// https://developer.apple.com/documentation/activitykit/activity/activityupdates-swift.type.property
    public static var activityUpdates: ActivityUpdates { fatalError("stub: type-checking only") }

    /// Related Apple documentation: https://developer.apple.com/documentation/activitykit/activity/pushtostarttoken
    @available(iOS 17.2, *)
    public static var pushToStartToken: Data? { fatalError("stub: type-checking only") }

    /// Related Apple documentation: https://developer.apple.com/documentation/activitykit/activity/pushtostarttokenupdates
    @available(iOS 17.2, *)
    public static var pushToStartTokenUpdates: PushTokenUpdates { fatalError("stub: type-checking only") }

    /// Related Apple documentation: https://developer.apple.com/documentation/activitykit/activity/activitystate
    public var activityState: ActivityState { fatalError("stub: type-checking only") }

    /// Related Apple documentation: https://developer.apple.com/documentation/activitykit/activity/content
    @available(iOS 16.2, *)
    public var content: ActivityContent<Activity<Attributes>.ContentState> { fatalError("stub: type-checking only") }

    /// The activity's update token (nil until ActivityKit has one). Related Apple documentation:
    /// https://developer.apple.com/documentation/activitykit/activity/pushtoken
    public var pushToken: Data? { fatalError("stub: type-checking only") }

    /// Related Apple documentation:
    /// https://developer.apple.com/documentation/activitykit/activity/pushtokenupdates-swift.property
    public var pushTokenUpdates: PushTokenUpdates { fatalError("stub: type-checking only") }

    /// Related Apple documentation:
    /// https://developer.apple.com/documentation/activitykit/activity/activitystateupdates-swift.property
    public var activityStateUpdates: ActivityStateUpdates { fatalError("stub: type-checking only") }

    /// Starts a Live Activity (in the foreground). Related Apple documentation:
    /// https://developer.apple.com/documentation/activitykit/activity/request(attributes:content:pushtype:)
    @available(iOS 16.2, *)
    public static func request(
        attributes: Attributes, content: ActivityContent<Activity<Attributes>.ContentState>, pushType: PushType? = nil
    ) throws -> Activity<Attributes> {
        fatalError("stub: type-checking only")
    }

    /// Related Apple documentation: https://developer.apple.com/documentation/activitykit/activity/update(_:)
    @available(iOS 16.2, *)
    public func update(_ content: ActivityContent<Activity<Attributes>.ContentState>) async {
        fatalError("stub: type-checking only")
    }

    /// Related Apple documentation: https://developer.apple.com/documentation/activitykit/activity/end(_:dismissalpolicy:)
    @available(iOS 16.2, *)
    public func end(_ content: ActivityContent<Activity<Attributes>.ContentState>?, dismissalPolicy: ActivityUIDismissalPolicy = .default) async {
        fatalError("stub: type-checking only")
    }

    /// Related Apple documentation: https://developer.apple.com/documentation/activitykit/activity/activityupdates-swift.struct
    public struct ActivityUpdates: AsyncSequence {
        /// Related Apple documentation: https://developer.apple.com/documentation/activitykit/activity/activityupdates-swift.struct/element
        public typealias Element = Activity<Attributes>

        /// Related Apple documentation: https://developer.apple.com/documentation/activitykit/activity/activityupdates-swift.struct/makeasynciterator()
        public func makeAsyncIterator() -> Iterator { fatalError("stub: type-checking only") }

        /// Related Apple documentation: https://developer.apple.com/documentation/activitykit/activity/activityupdates-swift.struct/iterator
        public struct Iterator: AsyncIteratorProtocol {
            /// Related Apple documentation: https://developer.apple.com/documentation/activitykit/activity/activityupdates-swift.struct/iterator/next()
            public mutating func next() async -> Activity<Attributes>? { fatalError("stub: type-checking only") }
        }
    }

    /// Related Apple documentation: https://developer.apple.com/documentation/activitykit/activity/pushtokenupdates-swift.struct
    public struct PushTokenUpdates: AsyncSequence {
        /// Related Apple documentation: https://developer.apple.com/documentation/activitykit/activity/pushtokenupdates-swift.struct/element
        public typealias Element = Data

        /// Related Apple documentation: https://developer.apple.com/documentation/activitykit/activity/pushtokenupdates-swift.struct/makeasynciterator()
        public func makeAsyncIterator() -> Iterator { fatalError("stub: type-checking only") }

        /// Related Apple documentation: https://developer.apple.com/documentation/activitykit/activity/pushtokenupdates-swift.struct/iterator
        public struct Iterator: AsyncIteratorProtocol {
            /// Related Apple documentation: https://developer.apple.com/documentation/activitykit/activity/pushtokenupdates-swift.struct/iterator/next()
            public mutating func next() async -> Data? { fatalError("stub: type-checking only") }
        }
    }

    /// Related Apple documentation: https://developer.apple.com/documentation/activitykit/activity/activitystateupdates-swift.struct
    public struct ActivityStateUpdates: AsyncSequence {
        /// Related Apple documentation: https://developer.apple.com/documentation/activitykit/activity/activitystateupdates-swift.struct/element
        public typealias Element = ActivityState

        /// Related Apple documentation: https://developer.apple.com/documentation/activitykit/activity/activitystateupdates-swift.struct/makeasynciterator()
        public func makeAsyncIterator() -> Iterator { fatalError("stub: type-checking only") }

        /// Related Apple documentation:
        /// https://developer.apple.com/documentation/activitykit/activity/activitystateupdates-swift.struct/iterator
        public struct Iterator: AsyncIteratorProtocol, Sendable {
            /// Related Apple documentation: https://developer.apple.com/documentation/activitykit/activity/activitystateupdates-swift.struct/iterator/next()
            public mutating func next() async -> ActivityState? { fatalError("stub: type-checking only") }
        }
    }
}

/// Related Apple documentation: https://developer.apple.com/documentation/activitykit/activity/id
@available(iOS 16.1, *)
extension Activity: Identifiable {}
