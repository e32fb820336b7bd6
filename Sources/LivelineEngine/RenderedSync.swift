import LivelinePush
import LivelineStore

/// A context's push as the dispatcher sends it: rendered at send time from the current state.
struct RenderedSync: Sendable {
    let contextKey: String
    let rev: Int
    let event: String
    let contractName: String
    let payload: [UInt8]
    let priority: APNSPriority
    /// True when the payload carries the context's pending alert hint (cleared once delivered).
    let carriesHints: Bool
    let tokens: [PushTokenRecord]
    let channelID: String?
}
