import Foundation
import LivelineModel

extension ShoppingActivityAttributes {
    /// What the shopping card shows; sent with start, update, end and broadcast (`docs/contracts.md` §1).
    ///
    /// Optionals are encoded as `null`, as the source documents send them; the story fields
    /// (`lastItem` … `updatedAt`) are `null` while no tracked action happened in the week.
    public struct ContentState: Codable, Hashable, Sendable {
        /// Open (not yet checked off) items of the week.
        public var open: Int
        /// Checked-off items.
        public var done: Int
        /// `open + done`.
        public var total: Int
        /// Estimated cost of the open items that have a price (euros, 2 decimals).
        public var estEur: Double
        /// How many open items have a price (coverage of `estEur`).
        public var estPriced: Int
        /// Label of the item of the last tracked action.
        public var lastItem: String?
        /// User id of who acted last (the app renders "me" vs "someone else").
        public var lastActorUserId: Int?
        public var lastActorName: String?
        /// Colour name, e.g. `"azure"`, `"coral"`.
        public var lastActorAvatarTint: String?
        public var lastActorEmoji: String?
        /// The story line in the household's language, e.g. `"Dennis hat Milch eingepackt"`.
        public var lastEventText: String?
        /// Time of the last tracked action, `"YYYY-MM-DD HH:MM:SS"` (UTC).
        public var updatedAt: String?
        /// The next open items (at most 3, list order), to check off from the Dynamic Island.
        public var nextOpen: [OpenItem]
        /// Who is in the shop right now.
        public var activeShoppers: [Shopper]
        /// `true` on the final state when the trip is finished; else `nil`.
        public var ended: Bool?
        /// The week's monotone revision.
        public var rev: Int

        public init(
            open: Int, done: Int, total: Int, estEur: Double, estPriced: Int,
            lastItem: String? = nil, lastActorUserId: Int? = nil, lastActorName: String? = nil,
            lastActorAvatarTint: String? = nil, lastActorEmoji: String? = nil, lastEventText: String? = nil,
            updatedAt: String? = nil, nextOpen: [OpenItem] = [], activeShoppers: [Shopper] = [],
            ended: Bool? = nil, rev: Int
        ) {
            self.open = open
            self.done = done
            self.total = total
            self.estEur = estEur
            self.estPriced = estPriced
            self.lastItem = lastItem
            self.lastActorUserId = lastActorUserId
            self.lastActorName = lastActorName
            self.lastActorAvatarTint = lastActorAvatarTint
            self.lastActorEmoji = lastActorEmoji
            self.lastEventText = lastEventText
            self.updatedAt = updatedAt
            self.nextOpen = nextOpen
            self.activeShoppers = activeShoppers
            self.ended = ended
            self.rev = rev
        }

        enum CodingKeys: String, CodingKey {
            case open, done, total, estEur, estPriced, lastItem, lastActorUserId, lastActorName
            case lastActorAvatarTint, lastActorEmoji, lastEventText, updatedAt, nextOpen, activeShoppers
            case ended, rev
        }

        // Decoding is what the synthesized code does (a missing or null optional is nil); it is
        // written out only because encoding must write `null` for nil, which synthesized code omits.
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            open = try c.decode(Int.self, forKey: .open)
            done = try c.decode(Int.self, forKey: .done)
            total = try c.decode(Int.self, forKey: .total)
            estEur = try c.decode(Double.self, forKey: .estEur)
            estPriced = try c.decode(Int.self, forKey: .estPriced)
            lastItem = try c.decodeIfPresent(String.self, forKey: .lastItem)
            lastActorUserId = try c.decodeIfPresent(Int.self, forKey: .lastActorUserId)
            lastActorName = try c.decodeIfPresent(String.self, forKey: .lastActorName)
            lastActorAvatarTint = try c.decodeIfPresent(String.self, forKey: .lastActorAvatarTint)
            lastActorEmoji = try c.decodeIfPresent(String.self, forKey: .lastActorEmoji)
            lastEventText = try c.decodeIfPresent(String.self, forKey: .lastEventText)
            updatedAt = try c.decodeIfPresent(String.self, forKey: .updatedAt)
            nextOpen = try c.decode([OpenItem].self, forKey: .nextOpen)
            activeShoppers = try c.decode([Shopper].self, forKey: .activeShoppers)
            ended = try c.decodeIfPresent(Bool.self, forKey: .ended)
            rev = try c.decode(Int.self, forKey: .rev)
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(open, forKey: .open)
            try c.encode(done, forKey: .done)
            try c.encode(total, forKey: .total)
            try c.encode(estEur, forKey: .estEur)
            try c.encode(estPriced, forKey: .estPriced)
            try c.encode(lastItem, forKey: .lastItem)
            try c.encode(lastActorUserId, forKey: .lastActorUserId)
            try c.encode(lastActorName, forKey: .lastActorName)
            try c.encode(lastActorAvatarTint, forKey: .lastActorAvatarTint)
            try c.encode(lastActorEmoji, forKey: .lastActorEmoji)
            try c.encode(lastEventText, forKey: .lastEventText)
            try c.encode(updatedAt, forKey: .updatedAt)
            try c.encode(nextOpen, forKey: .nextOpen)
            try c.encode(activeShoppers, forKey: .activeShoppers)
            try c.encode(ended, forKey: .ended)
            try c.encode(rev, forKey: .rev)
        }
    }
}
