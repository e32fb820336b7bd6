import Foundation
import LivelineModel

/// Meal planning for two (`docs/features/cook-suggest.md`): the bodies of its routes, shared by the
/// server and the app. Request keys are those of the source document (`with_user_id`,
/// `proposal_id`); answers and answers' keys are camelCase as in the app's model.

/// Body of `POST /api/cook-suggest/sessions`: every key optional.
public struct CreateCookSuggestSessionRequest: Codable, Sendable, Hashable {
    /// The day planned, `YYYY-MM-DD`; today (in the server's meal-planning time zone) when left out.
    public var date: String?
    /// The partner, a member of the caller's household; without one the session is solo.
    public var withUserId: Int?
    /// Who starts it (a member of the caller's household); the caller when left out.
    public var by: Int?

    public init(date: String? = nil, withUserId: Int? = nil, by: Int? = nil) {
        self.date = date
        self.withUserId = withUserId
        self.by = by
    }

    enum CodingKeys: String, CodingKey {
        case date
        case withUserId = "with_user_id"
        case by
    }
}

/// A participant's answers (`PUT /api/cook-suggest/sessions/{id}/answers`), all optional. The
/// server refuses what it cannot use with a 400 naming the field (`diet[1]`, `maxMinutes`).
public struct CookSuggestAnswers: Codable, Sendable, Hashable {
    /// The longest the dish may take, minutes (5–600).
    public var maxMinutes: Int?
    /// Tags that must hold: `vegetarian`, `vegan`, `glutenFree`, `lactoseFree`.
    public var diet: [String]?
    /// Soft tags: `quick`, `comfort`, `fresh`, `spicy`, `asian`, `italian`, `light`, `hearty`.
    public var moods: [String]?
    /// Ingredients to use up, by name (1–60 characters each, at most 20).
    public var useUp: [String]?
    /// How many eat (1–20).
    public var servings: Int?
    /// Who answers (a member of the caller's household who takes part); the caller when left out.
    public var by: Int?

    public init(maxMinutes: Int? = nil, diet: [String]? = nil, moods: [String]? = nil, useUp: [String]? = nil, servings: Int? = nil, by: Int? = nil) {
        self.maxMinutes = maxMinutes
        self.diet = diet
        self.moods = moods
        self.useUp = useUp
        self.servings = servings
        self.by = by
    }
}

/// Body of `pick` and `confirm`.
public struct CookSuggestProposalRequest: Codable, Sendable, Hashable {
    /// The id of one of the session's proposals.
    public var proposalId: String
    /// Who acts; the caller when left out.
    public var by: Int?

    public init(proposalId: String, by: Int? = nil) {
        self.proposalId = proposalId
        self.by = by
    }

    enum CodingKeys: String, CodingKey {
        case proposalId = "proposal_id"
        case by
    }
}

/// Body of `join`, `ready`, `leave` and `cancel` (may be empty).
public struct CookSuggestStepRequest: Codable, Sendable, Hashable {
    /// Who acts; the caller when left out.
    public var by: Int?

    public init(by: Int? = nil) { self.by = by }
}

/// One of up to three proposals, in the viewer's language.
public struct CookSuggestProposal: Codable, Sendable, Hashable {
    /// The recipe's id; what `pick` and `confirm` name.
    public var id: String
    public var title: String
    public var minutes: Int
    public var score: Double
    /// Short reasons, e.g. `vegetarisch`, `nutzt Zucchini`.
    public var reasons: [String]
    /// What to buy or have: `2 piece Zwiebeln` as amount, unit and name.
    public var ingredients: [CookSuggestIngredient]

    public init(id: String, title: String, minutes: Int, score: Double, reasons: [String], ingredients: [CookSuggestIngredient]) {
        self.id = id
        self.title = title
        self.minutes = minutes
        self.score = score
        self.reasons = reasons
        self.ingredients = ingredients
    }
}

/// One ingredient of a proposal, scaled to the session's servings.
public struct CookSuggestIngredient: Codable, Sendable, Hashable {
    public var name: String
    public var amount: Double
    /// `g`, `kg`, `ml`, `l`, `piece`, `tbsp`, `tsp`, `pinch`, `clove`, `bunch`, `can`.
    public var unit: String

    public init(name: String, amount: Double, unit: String) {
        self.name = name
        self.amount = amount
        self.unit = unit
    }
}

/// A participant as the session shows them.
public struct CookSuggestParticipant: Codable, Sendable, Hashable {
    public var userId: Int
    public var name: String
    public var avatarTint: String
    public var emoji: String
    /// `initiator` or `partner`.
    public var role: String
    /// Opened the session (the initiator always has).
    public var joined: Bool
    /// Has not left.
    public var present: Bool
    public var ready: Bool
    public var answers: CookSuggestAnswers
    /// The proposal picked, and the one confirmed.
    public var pick: String?
    public var confirmed: String?

    public init(
        userId: Int, name: String, avatarTint: String, emoji: String, role: String, joined: Bool, present: Bool, ready: Bool,
        answers: CookSuggestAnswers, pick: String?, confirmed: String?
    ) {
        self.userId = userId
        self.name = name
        self.avatarTint = avatarTint
        self.emoji = emoji
        self.role = role
        self.joined = joined
        self.present = present
        self.ready = ready
        self.answers = answers
        self.pick = pick
        self.confirmed = confirmed
    }
}

/// `GET /api/cook-suggest/sessions/{id}` (the truth) and the answer of every step: the session as
/// the caller sees it. With `since_rev` equal to the current revision only `id`, `rev` and
/// `unchanged: true`.
public struct CookSuggestSessionResponse: Codable, Sendable, Hashable {
    public var id: String
    public var rev: Int
    public var unchanged: Bool
    /// `answering`, `generating`, `proposed`, `finalizing`, `decided` or `cancelled`.
    public var state: String?
    public var date: String?
    public var solo: Bool?
    public var initiatorId: Int?
    public var partnerId: Int?
    public var participants: [CookSuggestParticipant]?
    /// Empty before `proposed`; empty in `proposed` when no recipe fits (the card says so).
    public var proposals: [CookSuggestProposal]?
    /// The dish agreed on, once `finalizing` or `decided`.
    public var decided: CookSuggestProposal?
    /// The caller's own card: exactly what their Live Activity shows at this revision.
    public var card: CookSuggestActivityAttributes.ContentState?
    /// The context key of the caller's card (`cooksuggest:{sessionId}:{userId}`): the app registers
    /// its card's update token under it.
    public var contextKey: String?
    /// When the session is cancelled for lack of activity, unless something happens before.
    public var expiresAt: Date?
    /// Set on the answer of a create: false when the same session was open already (a second
    /// submit of the same create).
    public var created: Bool?

    public init(
        id: String, rev: Int, unchanged: Bool, state: String? = nil, date: String? = nil, solo: Bool? = nil, initiatorId: Int? = nil,
        partnerId: Int? = nil, participants: [CookSuggestParticipant]? = nil, proposals: [CookSuggestProposal]? = nil,
        decided: CookSuggestProposal? = nil, card: CookSuggestActivityAttributes.ContentState? = nil, contextKey: String? = nil,
        expiresAt: Date? = nil, created: Bool? = nil
    ) {
        self.id = id
        self.rev = rev
        self.unchanged = unchanged
        self.state = state
        self.date = date
        self.solo = solo
        self.initiatorId = initiatorId
        self.partnerId = partnerId
        self.participants = participants
        self.proposals = proposals
        self.decided = decided
        self.card = card
        self.contextKey = contextKey
        self.expiresAt = expiresAt
        self.created = created
    }
}
