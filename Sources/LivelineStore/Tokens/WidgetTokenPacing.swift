import Foundation
import LivelineModel

/// An active `widgets` token as the widget pushes of a change need it (`docs/engine.md`,
/// "Widget pushes"): the kinds of the widgets it serves and when its newest widget push is due.
public struct WidgetTokenPacing: Sendable, Hashable {
    public var id: PushTokenID
    public var deviceID: String
    public var kinds: Set<String>
    /// When the newest widget push enqueued for the token is (or was) due; nil before the first.
    public var lastPushAt: Date?

    public init(id: PushTokenID, deviceID: String, kinds: Set<String>, lastPushAt: Date?) {
        self.id = id
        self.deviceID = deviceID
        self.kinds = kinds
        self.lastPushAt = lastPushAt
    }
}
