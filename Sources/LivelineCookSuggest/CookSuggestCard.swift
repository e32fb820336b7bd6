import Foundation
import LivelineCookSuggestModel
import LivelineEngine
import LivelineModel
import LivelineStore

/// The meal-planning card (`docs/features/cook-suggest.md`, "The card"): one payload per
/// participant, the partner being the other one, its line in the viewer's language. Built at send
/// time from the transaction the engine gives, and by the session's pull from its own read: what
/// the card shows after a pull is what the pull says.
public struct CookSuggestCard: SnapshotSource {
    let domain: CookSuggestDomain

    public init(domain: CookSuggestDomain) { self.domain = domain }

    public func contentState(of context: ContextRecord, in transaction: any SQLTransaction) throws -> JSONValue {
        let parts = context.key.split(separator: ":")
        guard parts.count == 3, parts[0] == "cooksuggest", let viewer = Int(parts[2]) else {
            throw EngineError("\(context.key) is not a meal-planning card (cooksuggest:{sessionId}:{userId})")
        }
        guard let view = try domain.view(String(parts[1]), in: transaction) else {
            throw EngineError("the meal-planning session of \(context.key) is gone")
        }
        let state = Self.contentState(
            of: view, viewer: UserID(viewer), rev: context.rev, ended: context.state == .ended, catalogue: domain.catalogue)
        return try JSONValue(json: JSONEncoder().encode(state))
    }

    /// The static attributes of `viewer`'s card: the partner is the other participant.
    static func attributes(of view: CookSuggestSessionView, viewer: UserID) -> CookSuggestActivityAttributes {
        let partner = view.partner(of: viewer).flatMap { view.users[$0.userID] }
        return CookSuggestActivityAttributes(
            sessionId: view.session.id, date: view.session.day, partnerName: partner?.name, partnerTint: partner?.avatarTint,
            partnerEmoji: partner?.emoji)
    }

    /// What `viewer`'s card shows of the session at `rev`. A participant who left has an ended
    /// card that says the planning is off for them.
    public static func contentState(
        of view: CookSuggestSessionView, viewer: UserID, rev: Int, ended contextEnded: Bool = false, catalogue: [Recipe] = RecipeCatalogue.all
    ) -> CookSuggestActivityAttributes.ContentState {
        let session = view.session
        let locale = view.users[viewer]?.locale ?? "de"
        let english = locale == "en"
        let me = view.participant(viewer)
        let partner = view.partner(of: viewer)
        let partnerName = partner.flatMap { view.users[$0.userID]?.name } ?? "?"
        func title(_ recipeID: String?) -> String? {
            recipeID.map { id in catalogue.first { $0.id == id }?.title.text(locale) ?? id }
        }
        let count = session.state == .answering || session.state == .generating ? 0 : view.proposals.count
        var state = CookSuggestActivityAttributes.ContentState(
            state: session.state.rawValue, statusLabel: "", proposalCount: count, partnerReady: partner?.ready ?? false,
            updatedAt: Self.timestamp(session.activeAt), rev: rev)
        let left = me?.present == false
        switch left ? .cancelled : session.state {
        case .answering:
            if partner == nil {
                state.statusLabel = english ? "Answer a few questions" : "Beantworte ein paar Fragen"
            } else if partner?.present == false {
                state.statusLabel = english ? "\(partnerName) has left" : "\(partnerName) ist gegangen"
            } else if partner?.ready == true {
                state.statusLabel = english ? "\(partnerName) is ready" : "\(partnerName) ist bereit"
            } else {
                state.statusLabel = english ? "\(partnerName) is filling in …" : "\(partnerName) füllt aus …"
            }
            state.deepLinkStep = me?.ready == true ? "waiting" : "answers"
        case .generating:
            state.statusLabel = english ? "The kitchen is thinking …" : "Die Küche denkt nach …"
            state.deepLinkStep = "waiting"
        case .proposed:
            if let partner, partner.present, let pick = partner.pick, let pickTitle = title(pick) {
                state.statusLabel = english ? "Suggestion: \(pickTitle)?" : "Vorschlag: \(pickTitle)?"
                state.partnerPickTitle = pickTitle
                state.deepLinkStep = me?.confirmed == pick ? "proposals" : "confirm"
            } else {
                state.statusLabel =
                    switch count {
                    case 0: english ? "No dish fits your answers" : "Kein Gericht passt zu euren Antworten"
                    case 1: english ? "1 proposal is ready" : "1 Vorschlag ist da"
                    default: english ? "\(count) proposals are ready" : "\(count) Vorschläge sind da"
                    }
                state.deepLinkStep = "proposals"
            }
        case .finalizing:
            state.statusLabel = english ? "Being served …" : "Wird angerichtet …"
            state.deepLinkStep = "result"
        case .decided:
            let dish = title(session.decidedRecipeID) ?? "?"
            state.statusLabel = english ? "Today: \(dish)" : "Heute: \(dish)"
            state.decidedTitle = dish
            state.deepLinkStep = "result"
        case .cancelled:
            state.state = CookSuggestState.cancelled.rawValue
            state.statusLabel = english ? "Cancelled" : "Abgesagt"
            state.proposalCount = count
        }
        if session.state.isFinal || left || contextEnded { state.ended = true }
        return state
    }

    /// `YYYY-MM-DD HH:MM:SS` in UTC.
    static func timestamp(_ date: Date) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        let c = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        return String(format: "%04d-%02d-%02d %02d:%02d:%02d", c.year ?? 0, c.month ?? 0, c.day ?? 0, c.hour ?? 0, c.minute ?? 0, c.second ?? 0)
    }
}
