/// A GTFS-Realtime feed that cannot be used: a machine `code` to branch on and a message for a
/// person that says what was wrong (guide README, habit 5).
public struct RealtimeFeedError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The bytes are not a protobuf `FeedMessage` (empty, truncated, another format, or a
        /// message without its required fields).
        public static let notAFeedMessage = Code(rawValue: "notAFeedMessage")
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
