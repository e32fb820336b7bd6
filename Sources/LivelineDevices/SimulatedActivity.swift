import Foundation
import LivelineModel

/// One Live Activity on a simulated device, as ActivityKit keeps it.
public struct SimulatedActivity: Sendable, Hashable {
    public enum State: String, Sendable, Hashable {
        /// Scheduled by the app (`Activity.request(…start:)`, iOS 26): not shown until the system
        /// starts it at ``SimulatedActivity/startsAt``; it counts against the activity limit.
        case pending
        case active
        /// Past its stale date: the card shows it is out of date.
        case stale
        /// Ended: the final state stays on the lock screen until it is dismissed.
        case ended
        /// Gone from the lock screen.
        case dismissed
    }

    public var id: String
    public var attributesType: String
    public var attributes: JSONValue
    /// The server's context key (from the attributes), which the app registers its token with.
    public var contextKey: String
    /// The content state shown (decoded fine into the contract's type).
    public var contentState: JSONValue
    /// The `timestamp` of the content shown (pushes with an older one are dropped).
    public var timestamp: Int
    public var state: State
    public var startedAt: Date
    public var staleAt: Date?
    public var endedAt: Date?
    /// When an ended card leaves (its dismissal date, at most 4 hours after the end).
    public var dismissAt: Date?
    /// Its update token, once minted (after "Allow", with `input-push-token`).
    public var updateToken: String?
    /// The broadcast channel it follows (`input-push-channel`).
    public var channelID: String?
    /// Whether it waits for the user's "Allow" to mint its update token.
    public var awaitingAllow: Bool
    /// Accepted priority-10 updates, for the hourly budget.
    public var priorityLedger: [Date]
    /// Never shown: created with a past stale date.
    public var presented: Bool
    /// When the system starts a pending activity (the app's `start:` date).
    public var startsAt: Date? = nil
    /// Requested with `ActivityStyle.transient` (iOS 18): ends when the person leaves the app.
    public var transient = false

    public init(
        id: String, attributesType: String, attributes: JSONValue, contextKey: String, contentState: JSONValue, timestamp: Int,
        state: State, startedAt: Date, staleAt: Date?, endedAt: Date?, dismissAt: Date?, updateToken: String?, channelID: String?,
        awaitingAllow: Bool, priorityLedger: [Date], presented: Bool
    ) {
        self.id = id
        self.attributesType = attributesType
        self.attributes = attributes
        self.contextKey = contextKey
        self.contentState = contentState
        self.timestamp = timestamp
        self.state = state
        self.startedAt = startedAt
        self.staleAt = staleAt
        self.endedAt = endedAt
        self.dismissAt = dismissAt
        self.updateToken = updateToken
        self.channelID = channelID
        self.awaitingAllow = awaitingAllow
        self.priorityLedger = priorityLedger
        self.presented = presented
    }

    /// The revision the content state carries, when its contract has one.
    public var rev: Int? {
        if case .int(let rev)? = contentState.objectValue?["rev"] { return rev }
        return nil
    }

    /// On the lock screen now.
    public var isVisible: Bool { presented && state != .dismissed && state != .pending }

    /// Shown, or waiting to be started by the system: what the concurrent-activity limit counts.
    public var isRunning: Bool { isVisible || state == .pending }
}
