import Foundation

/// Body of `POST /v1/contexts/{key}/start`: start the context's Live Activity by push-to-start on
/// the devices of `userIds` and on `deviceIds` (`docs/engine.md`, "Lifecycle").
public struct StartContextRequest: Codable, Sendable, Hashable {
    public var userIds: [Int]?
    public var deviceIds: [String]?
    /// A start needs an alert with a title (it lights the phone up).
    public var alert: LiveActivityAlert
    /// Start also for users who dismissed this context's activity (they asked for it again).
    public var includeDismissed: Bool?
    /// Give the context a broadcast channel (if it has none) and start with `input-push-channel`.
    public var useChannel: Bool?
    /// When the push-to-start goes out, an RFC 3339 date-time (`2026-06-18T08:00:00Z`); absent:
    /// at once (`docs/api.md`, "Scheduled starts"). The server's counterpart of an app's own
    /// `Activity.request(attributes:content:pushType:style:alertConfiguration:start:)`.
    public var at: String?

    public init(
        userIds: [Int]? = nil, deviceIds: [String]? = nil, alert: LiveActivityAlert, includeDismissed: Bool? = nil, useChannel: Bool? = nil,
        at: Date? = nil
    ) {
        self.userIds = userIds
        self.deviceIds = deviceIds
        self.alert = alert
        self.includeDismissed = includeDismissed
        self.useChannel = useChannel
        self.at = at.map { $0.formatted(.iso8601) }
    }
}

/// Answer of `POST /v1/contexts/{key}/start`: what happened on each device.
public struct StartContextResponse: Codable, Sendable, Hashable {
    public struct Start: Codable, Sendable, Hashable {
        /// `queued`, `alreadyStarted`, `overBudget`, `dismissed` or `noStartToken`.
        public var outcome: String
        public var deviceId: String?
        public var userId: Int?
        public var reason: String?

        public init(outcome: String, deviceId: String?, userId: Int?, reason: String?) {
            self.outcome = outcome
            self.deviceId = deviceId
            self.userId = userId
            self.reason = reason
        }
    }

    public var key: String
    /// The channel the started activities follow, when the context has one (its default APNs
    /// environment's, else the other's).
    public var channelId: String?
    /// The context's channel in each APNs environment that has one (`sandbox`, `production`):
    /// each device follows its own environment's.
    public var channelIds: [String: String]?
    /// Why a channel was asked for and is not used (updates then go to each device's token).
    public var channelFallback: String?
    public var starts: [Start]

    public init(key: String, channelId: String?, channelIds: [String: String]? = nil, channelFallback: String?, starts: [Start]) {
        self.key = key
        self.channelId = channelId
        self.channelIds = channelIds
        self.channelFallback = channelFallback
        self.starts = starts
    }
}
