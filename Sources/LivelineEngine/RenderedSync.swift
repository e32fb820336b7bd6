import LivelineStore

/// A context's push as the dispatcher sends it: rendered at send time from the current state.
struct RenderedSync: Sendable {
    let contextKey: String
    let rev: Int
    let event: String
    let contractName: String
    let payload: [UInt8]
    let tokens: [PushTokenRecord]
    let channelID: String?
}
