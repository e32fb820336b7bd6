import Foundation
import LivelineModel

/// Broadcast channels as first-class rows (`docs/engine.md`, "Broadcast channels"): the APNs channel
/// id, what it is for, its owner (a context or a household), storage policy and environment, and
/// when it was created and deleted.
public struct ChannelRepository: Sendable {
    public let database: any Database

    public init(database: any Database) {
        self.database = database
    }

    /// Records a channel APNs created.
    @discardableResult
    public func insert(
        channelID: String, purpose: String, ownerKind: ChannelRecord.OwnerKind, owner: String, storagePolicy: Int, environment: String,
        now: Date, in transaction: any SQLTransaction
    ) throws -> ChannelRecord {
        guard
            let row = try transaction.queryOne(
                """
                INSERT INTO channels (channel_id, purpose, owner_kind, owner, storage_policy, environment, status, created_at)
                VALUES ($1, $2, $3, $4, $5, $6, 'active', $7)
                RETURNING \(ChannelRecord.columns)
                """,
                [
                    .text(channelID), .text(purpose), .text(ownerKind.rawValue), .text(owner), SQLValue(storagePolicy), .text(environment),
                    SQLValue(now),
                ]
            )
        else {
            throw StoreError(.database, "recording a channel returned no row")
        }
        return try ChannelRecord(row: row)
    }

    // MARK: A context's channel per environment

    /// The context's channel in `environment`, or `nil`.
    public func contextChannel(key: String, environment: PushEnvironment, in transaction: any SQLTransaction) throws -> String? {
        try transaction.queryOne(
            "SELECT channel_id FROM context_channels WHERE context_key = $1 AND environment = $2", [.text(key), .text(environment.rawValue)]
        )?.string("channel_id")
    }

    public func contextChannel(key: String, environment: PushEnvironment) throws -> String? {
        try database.read { transaction in try contextChannel(key: key, environment: environment, in: transaction) }
    }

    /// The context's channels, by environment.
    public func contextChannels(key: String, in transaction: any SQLTransaction) throws -> [PushEnvironment: String] {
        var channels: [PushEnvironment: String] = [:]
        for row in try transaction.query("SELECT environment, channel_id FROM context_channels WHERE context_key = $1", [.text(key)]) {
            guard let environment = PushEnvironment(rawValue: try row.string("environment")) else { continue }
            channels[environment] = try row.string("channel_id")
        }
        return channels
    }

    /// The context and environment `channelID` is linked to, or `nil`.
    public func linkedContext(channelID: String, in transaction: any SQLTransaction) throws -> (key: String, environment: PushEnvironment)? {
        guard
            let row = try transaction.queryOne("SELECT context_key, environment FROM context_channels WHERE channel_id = $1", [.text(channelID)]),
            let environment = PushEnvironment(rawValue: try row.string("environment"))
        else { return nil }
        return (try row.string("context_key"), environment)
    }

    /// Makes `channelID` the context's channel in `environment` (replacing any other there). Not a
    /// change of what the card shows: the context's `rev` stays.
    public func link(contextKey: String, environment: PushEnvironment, channelID: String, in transaction: any SQLTransaction) throws {
        try transaction.execute(
            """
            INSERT INTO context_channels (context_key, environment, channel_id) VALUES ($1, $2, $3)
            ON CONFLICT (context_key, environment) DO UPDATE SET channel_id = excluded.channel_id
            """,
            [.text(contextKey), .text(environment.rawValue), .text(channelID)]
        )
    }

    /// Makes `channelID` the context's channel in `environment` unless it has one there already
    /// (another instance linked its own first); returns the channel the context has now.
    public func linkUnlessLinked(
        contextKey: String, environment: PushEnvironment, channelID: String, in transaction: any SQLTransaction
    )
        throws -> String
    {
        try transaction.execute(
            """
            INSERT INTO context_channels (context_key, environment, channel_id) VALUES ($1, $2, $3)
            ON CONFLICT (context_key, environment) DO NOTHING
            """,
            [.text(contextKey), .text(environment.rawValue), .text(channelID)]
        )
        return try contextChannel(key: contextKey, environment: environment, in: transaction) ?? channelID
    }

    /// Removes the link of `channelID` (to whichever context has it); false when none had it.
    @discardableResult
    public func unlink(channelID: String, in transaction: any SQLTransaction) throws -> Bool {
        try transaction.execute("DELETE FROM context_channels WHERE channel_id = $1", [.text(channelID)]) == 1
    }

    /// Every active channel, oldest first.
    public func allActive() throws -> [ChannelRecord] {
        try database.read { transaction in
            try transaction.query("SELECT \(ChannelRecord.columns) FROM channels WHERE status = 'active' ORDER BY id").map(ChannelRecord.init(row:))
        }
    }

    /// Marks the channel deleted (APNs deleted it, or it no longer exists there), in the caller's
    /// transaction; `false` when it was not active.
    @discardableResult
    public func markDeleted(channelID: String, now: Date, in transaction: any SQLTransaction) throws -> Bool {
        try transaction.execute(
            "UPDATE channels SET status = 'deleted', deleted_at = $2 WHERE channel_id = $1 AND status = 'active'",
            [.text(channelID), SQLValue(now)]
        ) == 1
    }

    /// The row of `channelID`, active or deleted.
    public func channel(id channelID: String) throws -> ChannelRecord? {
        try database.read { transaction in try channel(id: channelID, in: transaction) }
    }

    public func channel(id channelID: String, in transaction: any SQLTransaction) throws -> ChannelRecord? {
        try transaction.queryOne("SELECT \(ChannelRecord.columns) FROM channels WHERE channel_id = $1", [.text(channelID)])
            .map(ChannelRecord.init(row:))
    }
}

/// One broadcast channel.
public struct ChannelRecord: Sendable, Hashable {
    public enum OwnerKind: String, Sendable, Hashable {
        case context
        case household
    }

    public var id: Int
    /// APNs' channel id (base64).
    public var channelID: String
    public var purpose: String
    public var ownerKind: OwnerKind
    /// The context key or the household id.
    public var owner: String
    /// 1: APNs keeps the most recent message for late joiners; 0: none (then `apns-expiration: 0`).
    public var storagePolicy: Int
    public var environment: String
    public var isActive: Bool
    public var createdAt: Date
    public var deletedAt: Date?

    static let columns = "id, channel_id, purpose, owner_kind, owner, storage_policy, environment, status, created_at, deleted_at"

    init(row: Row) throws {
        guard let ownerKind = OwnerKind(rawValue: try row.string("owner_kind")) else {
            throw StoreError(.column, "channels.owner_kind holds an unknown kind")
        }
        id = try row.int("id")
        channelID = try row.string("channel_id")
        purpose = try row.string("purpose")
        self.ownerKind = ownerKind
        owner = try row.string("owner")
        storagePolicy = try row.int("storage_policy")
        environment = try row.string("environment")
        isActive = try row.string("status") == "active"
        createdAt = try row.date("created_at")
        deletedAt = try row.optionalDate("deleted_at")
    }
}
