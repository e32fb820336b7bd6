import Foundation
import Synchronization

/// What the in-process APNs sandbox — the server's own APNs for testing when no APNs key is
/// configured — accepted, for the dashboard and `GET /v1/sandbox/accepted`: the newest pushes
/// (bounded), and a count since the server started. Tokens are kept by prefix only.
public final class SandboxRecord: Sendable {
    /// One accepted push, as the dashboard shows it.
    public struct Push: Sendable, Hashable, Codable {
        public var apnsID: String
        public var pushType: String
        public var priority: Int
        /// The first 8 characters of the device token; nil for a broadcast.
        public var tokenPrefix: String?
        /// The channel of a broadcast.
        public var channelID: String?
        /// The body's size in bytes.
        public var bytes: Int
        /// `aps.event` of a Live Activity push (`update`, `end`, `start`), if any.
        public var event: String?
        public var acceptedAt: Date

        enum CodingKeys: String, CodingKey {
            case apnsID = "apnsId", pushType, priority, tokenPrefix, channelID = "channelId", bytes, event, acceptedAt
        }

        public init(
            apnsID: String, pushType: String, priority: Int, tokenPrefix: String?, channelID: String?, bytes: Int, event: String?, acceptedAt: Date
        ) {
            self.apnsID = apnsID
            self.pushType = pushType
            self.priority = priority
            self.tokenPrefix = tokenPrefix
            self.channelID = channelID
            self.bytes = bytes
            self.event = event
            self.acceptedAt = acceptedAt
        }
    }

    /// Where the sandbox listens, for a person.
    public let description: String
    /// How many pushes are kept.
    public let capacity: Int

    private struct State {
        var newest: [Push] = []
        var head = 0
        var total = 0
    }
    private let state = Mutex(State())

    /// Pushes kept unless told otherwise; `GET /v1/sandbox/accepted?limit=` takes up to this many.
    public static let defaultCapacity = 200

    public init(description: String, capacity: Int = defaultCapacity) {
        precondition(capacity > 0)
        self.description = description
        self.capacity = capacity
    }

    /// Records one accepted push (the oldest kept goes once ``capacity`` are kept).
    public func record(_ push: Push) {
        state.withLock { state in
            state.total += 1
            if state.newest.count < capacity {
                state.newest.append(push)
            } else {
                state.newest[state.head] = push
                state.head = (state.head + 1) % capacity
            }
        }
    }

    /// Pushes accepted since the server started.
    public var total: Int { state.withLock { $0.total } }

    /// Pushes kept now (at most ``capacity``).
    public var kept: Int { state.withLock { $0.newest.count } }

    /// The newest `limit` pushes kept, newest first.
    public func newest(_ limit: Int) -> [Push] {
        state.withLock { state in
            let ordered = Array(state.newest[state.head...] + state.newest[..<state.head])
            return Array(ordered.reversed().prefix(max(0, limit)))
        }
    }
}
