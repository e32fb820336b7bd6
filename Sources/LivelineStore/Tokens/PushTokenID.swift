/// The row id of a registered push token (`push_tokens.id`), never the device token itself.
///
/// What outbox targets (`token:<id>`), outbox messages, starts and delivery records point at
/// (`docs/engine.md`, "The transactional outbox and the dispatcher"). A type of its own, so it cannot
/// be swapped with a start's, an outbox row's, a user's or a household's id. It reads and writes
/// as the plain number — in JSON (`Codable`, the outbox's stored messages), in text
/// (`description`) and in SQL (`SQLValue(id)`) — so no stored row changes.
public struct PushTokenID: IntegerID {
    public let rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }
}
