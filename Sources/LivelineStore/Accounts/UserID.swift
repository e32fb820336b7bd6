/// The id of a user (`users.id`; `docs/engine.md`, "People, devices, auth").
///
/// A type of its own, so a user's id cannot be passed where a household's id or a token's row id
/// is expected — nor an actor swapped with the household it acts in. It reads and writes as the
/// plain number — in JSON (`Codable`), in text (`description`, as in the idempotency key
/// `notify:{userId}:{dedupeKey}:{tokenId}`) and in SQL (`SQLValue(id)`) — so no API body and no
/// stored row changes. The API bodies of `LivelineModel`, shared with the iOS app, keep `Int`;
/// handlers convert at their boundary.
public struct UserID: IntegerID {
    public let rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }
}
