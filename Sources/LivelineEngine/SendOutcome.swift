import LivelinePushWire

/// One request and APNs' answer to it (or the stand-in for an answer that did not come in time).
struct SendOutcome: Sendable {
    let send: PreparedSend
    let result: APNSResult
}
