/// The row id of a registered push token (`push_tokens.id`), never the device token itself.
///
/// What outbox targets (`token:<id>`), outbox messages, starts and delivery records point at
/// (`docs/engine.md`, "The transactional outbox and the dispatcher"). A type of its own, so it cannot
/// be swapped with a start's, an outbox row's, a user's or a household's id. It reads and writes
/// as the plain number — in JSON (`Codable`, the outbox's stored messages), in text
/// (`description`) and in SQL (`SQLValue(id)`) — so no stored row changes.
public struct PushTokenID: RawRepresentable, Sendable, Hashable, Comparable, Codable, CustomStringConvertible,
    ExpressibleByIntegerLiteral
{
    public let rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }

    public init(_ rawValue: Int) { self.rawValue = rawValue }

    /// For tests and fixtures: `.token(7)`.
    public init(integerLiteral value: Int) { rawValue = value }

    public static func < (lhs: PushTokenID, rhs: PushTokenID) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { String(rawValue) }
}
