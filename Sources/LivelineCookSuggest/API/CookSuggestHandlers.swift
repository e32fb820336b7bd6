import Foundation
import LivelineAPI
import LivelineCookSuggestModel
import LivelineEngine
import LivelineHTTP
import LivelineModel
import LivelineStore

/// The meal-planning routes (`docs/features/cook-suggest.md`, "Endpoints"): every one needs the
/// bearer token of a household member; a session of another household is a 404, a step of someone
/// who does not take part a 403, a step the state does not allow a 409 naming the state, a bad
/// field a 400 naming it — and none of them changes anything.
struct CookSuggestHandlers: Sendable {
    let auth: Authenticator
    let engine: Engine
    let domain: CookSuggestDomain
    let jobs: CookSuggestJobs
    let timeZone: TimeZone
    let clock: @Sendable () -> Date

    init(context: FeatureContext, domain: CookSuggestDomain, jobs: CookSuggestJobs, timeZone: TimeZone) {
        auth = context.auth
        engine = context.engine
        clock = context.clock
        self.domain = domain
        self.jobs = jobs
        self.timeZone = timeZone
    }

    func addRoutes(to router: inout Router) {
        router.add(Routes.createCookSuggestSession) { request in
            let caller = try auth.caller(of: request)
            let body = request.body.isEmpty ? CreateCookSuggestSessionRequest() : try request.decode(CreateCookSuggestSessionRequest.self)
            let initiator = try actor(body.by, caller: caller)
            var partner: UserRecord?
            if let id = try body.withUserId.map({ try CommonFields.userID.named("with_user_id").integer($0) }) {
                guard let user = try engine.user(id: UserID(id)), user.householdID == caller.householdID else {
                    throw HTTPError.forbidden("with_user_id must be a member of your household; user \(id) is not")
                }
                guard user.id != initiator.id else {
                    throw HTTPError.conflict("with_user_id must be someone else than the one who starts the session")
                }
                partner = user
            }
            let day = try body.date.map(Self.day) ?? Self.today(clock(), in: timeZone)
            let now = clock()
            let (view, created) = try Self.refusals {
                try domain.create(householdID: caller.householdID, initiator: initiator.id, partner: partner?.id, day: day, now: now)
            }
            // The invitation goes out now; the sweep tries again if this fails.
            if created, partner != nil { jobs.run(.invite, session: view.session.id, engine: engine, now: now) }
            return try .json(response(view, viewer: initiator.id, created: created), status: created ? 201 : 200)
        }
        router.add(Routes.cookSuggestSession) { request in
            let caller = try auth.caller(of: request)
            let id = try CookSuggestDocumentation.id.text(request.parameter("id"))
            let sinceRev = try CommonFields.sinceRev.integerQuery(of: request)
            if let sinceRev, try domain.revision(sessionID: id, householdID: caller.householdID, participant: caller.userID) == sinceRev {
                return try .json(CookSuggestSessionResponse(id: id, rev: sinceRev, unchanged: true))
            }
            guard let view = try domain.read(sessionID: id, householdID: caller.householdID) else {
                throw HTTPError.notFound("there is no meal-planning session \(id) in your household")
            }
            // The truth for those who take part (the answers are theirs).
            guard view.participant(caller.userID) != nil else {
                throw HTTPError.forbidden("user \(caller.userID) does not take part in session \(id)")
            }
            return try .json(response(view, viewer: caller.userID))
        }
        router.add(Routes.joinCookSuggest) { request in try step(.join, request) }
        router.add(Routes.cookSuggestAnswers) { request in try step(.answers, request) }
        router.add(Routes.cookSuggestReady) { request in try step(.ready, request) }
        router.add(Routes.cookSuggestPick) { request in try step(.pick, request) }
        router.add(Routes.cookSuggestConfirm) { request in try step(.confirm, request) }
        router.add(Routes.leaveCookSuggest) { request in try step(.leave, request) }
        router.add(Routes.cancelCookSuggest) { request in try step(.cancel, request) }
    }

    /// A step of the session's state machine, for the caller or `by`.
    func step(_ action: CookSuggestAction, _ request: HTTPRequest) throws -> HTTPResponse {
        let caller = try auth.caller(of: request)
        let id = try CookSuggestDocumentation.id.text(request.parameter("id"))
        var answers: CookSuggestAnswers?
        var proposalID: String?
        let by: Int?
        switch action {
        case .answers:
            let body = request.body.isEmpty ? CookSuggestAnswers() : try request.decode(CookSuggestAnswers.self)
            answers = try CookSuggestInput.checked(body)
            answers?.by = nil
            by = body.by
        case .pick, .confirm:
            let body = try request.decode(CookSuggestProposalRequest.self)
            proposalID = try CookSuggestInput.proposalID.text(body.proposalId)
            by = body.by
        default:
            by = request.body.isEmpty ? nil : try request.decode(CookSuggestStepRequest.self).by
        }
        let actor = try actor(by, caller: caller)
        let now = clock()
        let view = try Self.refusals {
            try domain.step(
                action, sessionID: id, householdID: caller.householdID, actor: actor.id, answers: answers, proposalID: proposalID, now: now)
        }
        var shown = view
        if view.session.state == .finalizing {
            // Finalizing is the server's own step: done now (the sweep again if this fails).
            jobs.run(.finalize, session: id, engine: engine, now: now)
            shown = try domain.read(sessionID: id, householdID: caller.householdID) ?? view
        }
        return try .json(response(shown, viewer: actor.id))
    }

    /// The session as `viewer` sees it: their card and the proposals in their language.
    func response(_ view: CookSuggestSessionView, viewer: UserID, created: Bool? = nil) -> CookSuggestSessionResponse {
        let session = view.session
        let locale = view.users[viewer]?.locale ?? "de"
        let takesPart = view.participant(viewer) != nil
        let proposals = view.proposals.map { proposal(recipeID: $0.recipeID, score: $0.score, reasons: $0.reasons, locale: locale, view: view) }
        let decided = session.decidedRecipeID.map { id in
            proposals.first { $0.id == id } ?? proposal(recipeID: id, score: 0, reasons: [], locale: locale, view: view)
        }
        return CookSuggestSessionResponse(
            id: session.id, rev: session.rev, unchanged: false, state: session.state.rawValue, date: session.day, solo: session.isSolo,
            initiatorId: session.initiatorID.rawValue, partnerId: session.partnerID?.rawValue,
            participants: view.participants.map { participant in
                let user = view.users[participant.userID]
                return CookSuggestParticipant(
                    userId: participant.userID.rawValue, name: user?.name ?? "?", avatarTint: user?.avatarTint ?? "", emoji: user?.emoji ?? "",
                    role: participant.role, joined: participant.joined, present: participant.present, ready: participant.ready,
                    answers: participant.answers, pick: participant.pick, confirmed: participant.confirmed)
            },
            proposals: proposals, decided: decided,
            // The card as its pushes carry it: the card's own revision, and ended when the engine ended it.
            card: takesPart
                ? CookSuggestCard.contentState(
                    of: view, viewer: viewer, rev: view.cards[viewer]?.rev ?? session.rev, ended: view.cards[viewer]?.ended ?? false,
                    catalogue: domain.catalogue) : nil,
            contextKey: takesPart ? session.contextKey(of: viewer) : nil,
            expiresAt: session.state.isFinal ? nil : session.activeAt.addingTimeInterval(domain.ttl), created: created)
    }

    func proposal(recipeID: String, score: Double, reasons: [ProposalReason], locale: String, view: CookSuggestSessionView) -> CookSuggestProposal {
        let recipe = domain.recipe(recipeID)
        let servings = view.participants.compactMap(\.answers.servings).max()
        return CookSuggestProposal(
            id: recipeID, title: recipe?.title.text(locale) ?? recipeID, minutes: recipe?.minutes ?? 0, score: score,
            reasons: reasons.map { $0.text(locale, recipe: recipe) },
            ingredients: (recipe?.ingredients ?? []).map { ingredient in
                let factor = Double(servings ?? recipe?.servings ?? 2) / Double(recipe?.servings ?? 2)
                return CookSuggestIngredient(
                    name: ingredient.name.text(locale), amount: (ingredient.amount * factor * 10).rounded() / 10, unit: ingredient.unit)
            })
    }

    /// Who acts: `by` when given (a member of the caller's household, else 403), else the caller.
    func actor(_ by: Int?, caller: Caller) throws -> UserRecord {
        try caller.actor(by.map { try CommonFields.by.integer($0) }, engine: engine)
    }

    /// Runs a domain call, answering its refusals with their status.
    static func refusals<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let refusal as CookSuggestRefusal {
            switch refusal.kind {
            case .notFound: throw HTTPError.notFound(refusal.message)
            case .forbidden: throw HTTPError.forbidden(refusal.message)
            case .conflict: throw HTTPError.conflict(refusal.message)
            case .badInput(let field): throw HTTPError.badRequest(refusal.message, field: field)
            }
        }
    }

    // MARK: Input

    /// The `{id}` parameter: `cs_` and letters or digits.
    /// `date`: a real day written `YYYY-MM-DD` (``CookSuggestInput/date``).
    static func day(_ text: String) throws -> String {
        try CookSuggestInput.date.text(text)
    }

    /// Today in `zone`, `YYYY-MM-DD`.
    static func today(_ now: Date, in zone: TimeZone) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = zone
        let c = calendar.dateComponents([.year, .month, .day], from: now)
        return String(format: "%04d-%02d-%02d", c.year ?? 1970, c.month ?? 1, c.day ?? 1)
    }
}
