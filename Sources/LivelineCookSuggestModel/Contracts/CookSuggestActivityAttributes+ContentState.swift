import Foundation
import LivelineModel

extension CookSuggestActivityAttributes {
    /// What the meal-planning card shows, from the receiver's point of view (`docs/contracts.md` §2).
    /// Optionals are encoded as `null`.
    public struct ContentState: Codable, Hashable, Sendable {
        /// `answering`, `generating`, `proposed`, `finalizing`, `decided` or `cancelled`.
        public var state: String
        /// One line for the card, e.g. `"3 Vorschläge sind da"`.
        public var statusLabel: String
        /// Wizard step to open on tap: `answers`, `waiting`, `proposals`, `confirm`, `result`.
        public var deepLinkStep: String?
        /// Number of proposals (0 before `proposed`).
        public var proposalCount: Int
        /// Title of the proposal the partner picked.
        public var partnerPickTitle: String?
        /// The partner finished their answers.
        public var partnerReady: Bool
        /// The agreed dish, once `decided`.
        public var decidedTitle: String?
        /// `"YYYY-MM-DD HH:MM:SS"` UTC.
        public var updatedAt: String?
        /// The session's monotone revision.
        public var rev: Int
        /// `true` on `decided`/`cancelled` (sent with `event: end`).
        public var ended: Bool?

        public init(
            state: String, statusLabel: String, deepLinkStep: String? = nil, proposalCount: Int,
            partnerPickTitle: String? = nil, partnerReady: Bool, decidedTitle: String? = nil,
            updatedAt: String? = nil, rev: Int, ended: Bool? = nil
        ) {
            self.state = state
            self.statusLabel = statusLabel
            self.deepLinkStep = deepLinkStep
            self.proposalCount = proposalCount
            self.partnerPickTitle = partnerPickTitle
            self.partnerReady = partnerReady
            self.decidedTitle = decidedTitle
            self.updatedAt = updatedAt
            self.rev = rev
            self.ended = ended
        }

        enum CodingKeys: String, CodingKey {
            case state, statusLabel, deepLinkStep, proposalCount, partnerPickTitle, partnerReady
            case decidedTitle, updatedAt, rev, ended
        }

        // As synthesized, except that nil is encoded as `null` (synthesized code omits the key).
        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            state = try c.decode(String.self, forKey: .state)
            statusLabel = try c.decode(String.self, forKey: .statusLabel)
            deepLinkStep = try c.decodeIfPresent(String.self, forKey: .deepLinkStep)
            proposalCount = try c.decode(Int.self, forKey: .proposalCount)
            partnerPickTitle = try c.decodeIfPresent(String.self, forKey: .partnerPickTitle)
            partnerReady = try c.decode(Bool.self, forKey: .partnerReady)
            decidedTitle = try c.decodeIfPresent(String.self, forKey: .decidedTitle)
            updatedAt = try c.decodeIfPresent(String.self, forKey: .updatedAt)
            rev = try c.decode(Int.self, forKey: .rev)
            ended = try c.decodeIfPresent(Bool.self, forKey: .ended)
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(state, forKey: .state)
            try c.encode(statusLabel, forKey: .statusLabel)
            try c.encode(deepLinkStep, forKey: .deepLinkStep)
            try c.encode(proposalCount, forKey: .proposalCount)
            try c.encode(partnerPickTitle, forKey: .partnerPickTitle)
            try c.encode(partnerReady, forKey: .partnerReady)
            try c.encode(decidedTitle, forKey: .decidedTitle)
            try c.encode(updatedAt, forKey: .updatedAt)
            try c.encode(rev, forKey: .rev)
            try c.encode(ended, forKey: .ended)
        }
    }
}
