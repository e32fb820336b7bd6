import Foundation
import LivelineCookSuggestModel
import LivelineModel
import LivelineStore

/// Where a session is (`docs/features/cook-suggest.md`, "Session"). `decided` and `cancelled` are final.
public enum CookSuggestState: String, Sendable, Hashable, CaseIterable {
    case answering, generating, proposed, finalizing, decided, cancelled

    public var isFinal: Bool { self == .decided || self == .cancelled }
}

/// What a participant can do to a session.
public enum CookSuggestAction: String, Sendable, Hashable, CaseIterable {
    case join, answers, ready, pick, confirm, leave, cancel

    /// The states the action is allowed in (the spec's table); anything else is a 409 naming the
    /// state. Joining, leaving and cancelling work until the session is final; answers and ready
    /// only while answering; pick and confirm only once proposed.
    public func isAllowed(in state: CookSuggestState) -> Bool {
        switch self {
        case .join, .leave, .cancel: !state.isFinal
        case .answers, .ready: state == .answering
        case .pick, .confirm: state == .proposed
        }
    }
}

/// A session row.
public struct CookSuggestSession: Sendable, Hashable {
    public var id: String
    public var householdID: HouseholdID
    /// `YYYY-MM-DD`, the day planned.
    public var day: String
    public var initiatorID: UserID
    public var partnerID: UserID?
    public var state: CookSuggestState
    public var rev: Int
    public var decidedRecipeID: String?
    /// Why it was cancelled: `cancelled`, `left`, `expired`.
    public var cancelReason: String?
    public var createdAt: Date
    /// The last step anyone took: the TTL counts from here.
    public var activeAt: Date
    public var endedAt: Date?

    public var isSolo: Bool { partnerID == nil }

    static let columns = """
        id, household_id, day, initiator_id, partner_id, state, rev, decided_recipe_id, cancel_reason, created_at, active_at, ended_at
        """

    init(row: Row) throws {
        guard let state = CookSuggestState(rawValue: try row.string("state")) else {
            throw StoreError(.column, "cook_suggest_sessions.state holds an unknown state")
        }
        id = try row.string("id")
        householdID = HouseholdID(try row.int("household_id"))
        day = try row.string("day")
        initiatorID = UserID(try row.int("initiator_id"))
        partnerID = try row.optionalInt("partner_id").map { UserID($0) }
        self.state = state
        rev = try row.int("rev")
        decidedRecipeID = try row.optionalString("decided_recipe_id")
        cancelReason = try row.optionalString("cancel_reason")
        createdAt = try row.date("created_at")
        activeAt = try row.date("active_at")
        endedAt = try row.optionalDate("ended_at")
    }

    /// The context key of `userID`'s card of this session (`docs/contracts.md` §2).
    public func contextKey(of userID: UserID) -> String { Self.contextKey(sessionID: id, userID: userID) }

    public static func contextKey(sessionID: String, userID: UserID) -> String { "cooksuggest:\(sessionID):\(userID)" }

    /// The dedupe key of the partner's invitation.
    public var invitationKey: String { "cs-invite-\(id)" }
}

/// A participant row.
public struct CookSuggestParticipantRecord: Sendable, Hashable {
    public var userID: UserID
    /// `initiator` or `partner`.
    public var role: String
    public var joined: Bool
    public var present: Bool
    public var ready: Bool
    public var answers: CookSuggestAnswers
    public var pick: String?
    public var confirmed: String?

    static let columns = "user_id, role, joined, present, ready, answers, pick, confirmed"

    init(row: Row) throws {
        userID = UserID(try row.int("user_id"))
        role = try row.string("role")
        joined = try row.int("joined") == 1
        present = try row.int("present") == 1
        ready = try row.int("ready") == 1
        answers = try JSONDecoder().decode(CookSuggestAnswers.self, from: Data(try row.string("answers").utf8))
        pick = try row.optionalString("pick")
        confirmed = try row.optionalString("confirmed")
    }
}

/// A proposal row: the recipe, its score and why (reason codes, written out per viewer).
public struct CookSuggestProposalRecord: Sendable, Hashable {
    public var position: Int
    public var recipeID: String
    public var score: Double
    public var reasons: [ProposalReason]
}

/// Everything about one session, read in one transaction.
public struct CookSuggestSessionView: Sendable, Hashable {
    public var session: CookSuggestSession
    /// The initiator first.
    public var participants: [CookSuggestParticipantRecord]
    /// In order, best first.
    public var proposals: [CookSuggestProposalRecord]
    /// The participants' names, colours, emoji and languages.
    public var users: [UserID: CookSuggestUser]
    /// Each participant's card as the engine has it: its revision (what the pushes carry) and
    /// whether it ended.
    public var cards: [UserID: CardState] = [:]

    public struct CardState: Sendable, Hashable {
        public var rev: Int
        public var ended: Bool
    }

    public func participant(_ userID: UserID) -> CookSuggestParticipantRecord? { participants.first { $0.userID == userID } }

    /// The other participant from `userID`'s point of view.
    public func partner(of userID: UserID) -> CookSuggestParticipantRecord? { participants.first { $0.userID != userID } }

    public var present: [CookSuggestParticipantRecord] { participants.filter(\.present) }
}

/// What a card and the session show of a user.
public struct CookSuggestUser: Sendable, Hashable {
    public var id: UserID
    public var name: String
    public var avatarTint: String
    public var emoji: String
    /// `de` or `en`.
    public var locale: String
}
