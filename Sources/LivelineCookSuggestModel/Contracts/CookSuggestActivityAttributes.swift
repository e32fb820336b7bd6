import Foundation
import LivelineModel

/// The two-person meal-planning session's Live Activity (`docs/contracts.md` §2, source 001).
///
/// The payload differs per viewer (the partner is always "the other one"), so the context key is
/// per user: `cooksuggest:{sessionId}:{userId}`. Optionals are encoded as `null`.
public struct CookSuggestActivityAttributes: Codable, Hashable, Sendable {
    /// The session, e.g. `"cs_abc"`.
    public var sessionId: String
    /// The day being planned, `"YYYY-MM-DD"`.
    public var date: String
    /// The *other* participant, from the receiving user's point of view.
    public var partnerName: String?
    /// The partner's colour name.
    public var partnerTint: String?
    /// The partner's emoji.
    public var partnerEmoji: String?

    public init(sessionId: String, date: String, partnerName: String? = nil, partnerTint: String? = nil, partnerEmoji: String? = nil) {
        self.sessionId = sessionId
        self.date = date
        self.partnerName = partnerName
        self.partnerTint = partnerTint
        self.partnerEmoji = partnerEmoji
    }

    enum CodingKeys: String, CodingKey {
        case sessionId, date, partnerName, partnerTint, partnerEmoji
    }

    // As synthesized, except that nil is encoded as `null` (synthesized code omits the key).
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        sessionId = try c.decode(String.self, forKey: .sessionId)
        date = try c.decode(String.self, forKey: .date)
        partnerName = try c.decodeIfPresent(String.self, forKey: .partnerName)
        partnerTint = try c.decodeIfPresent(String.self, forKey: .partnerTint)
        partnerEmoji = try c.decodeIfPresent(String.self, forKey: .partnerEmoji)
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(sessionId, forKey: .sessionId)
        try c.encode(date, forKey: .date)
        try c.encode(partnerName, forKey: .partnerName)
        try c.encode(partnerTint, forKey: .partnerTint)
        try c.encode(partnerEmoji, forKey: .partnerEmoji)
    }
}
