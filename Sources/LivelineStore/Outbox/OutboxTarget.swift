/// One recipient of an outbox row; a row without a target means the whole fan-out of its context
/// (the broadcast channel and every `la-update` token, `docs/engine.md`, "Fan-out for a sync").
///
/// Stored as text, `token:<push_tokens.id>` or `channel:<channel id>`: never the device token
/// itself.
public enum OutboxTarget: Sendable, Hashable, CustomStringConvertible {
    /// A push token by its `push_tokens.id`.
    case token(PushTokenID)
    /// A broadcast channel by its APNs channel id.
    case channel(String)

    /// The stored form.
    public var rawValue: String {
        switch self {
        case .token(let id): "token:\(id)"
        case .channel(let id): "channel:\(id)"
        }
    }

    /// The target stored as `rawValue`, or `nil` for text of another form.
    public init?(rawValue: String) {
        if rawValue.hasPrefix("token:"), let id = Int(rawValue.dropFirst("token:".count)) {
            self = .token(PushTokenID(id))
        } else if rawValue.hasPrefix("channel:"), rawValue.count > "channel:".count {
            self = .channel(String(rawValue.dropFirst("channel:".count)))
        } else {
            return nil
        }
    }

    public var description: String { rawValue }
}
