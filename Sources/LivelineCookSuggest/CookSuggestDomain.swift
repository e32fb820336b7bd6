import Foundation
import LivelineAPI
import LivelineCookSuggestModel
import LivelineEngine
import LivelineModel
import LivelineShopping
import LivelineStore

/// Why a step was refused; the handlers answer each with its status.
public struct CookSuggestRefusal: Error, Sendable, Hashable, CustomStringConvertible {
    public enum Kind: Sendable, Hashable {
        /// No such session in the caller's household (404).
        case notFound
        /// The actor does not take part, or left (403).
        case forbidden
        /// Not allowed in the session's state (409, naming it).
        case conflict
        /// A field of the request is wrong (400, naming it).
        case badInput(field: String)
    }
    public var kind: Kind
    public var message: String
    public var description: String { message }

    init(_ kind: Kind, _ message: String) {
        self.kind = kind
        self.message = message
    }
}

/// Meal planning for two (`docs/features/cook-suggest.md`): sessions and their state machine. Every
/// step is one transaction through the engine's door: it changes the session's rows, bumps the
/// session's revision and every participant's card (one context each,
/// `cooksuggest:{sessionId}:{userId}`), and queues the job that carries the session on where one
/// is due (the invitation, generating, finalizing). Steps on one session run one after the other
/// on every backend: each first holds the session's cards (``lockCards(of:in:)``), so both
/// partners getting ready at the same instant make exactly one transition.
public struct CookSuggestDomain: Sendable {
    public let door: EngineDoor
    /// No step for this long: the session is cancelled (`LIVELINE_COOKSUGGEST_TTL_S`).
    public let ttl: TimeInterval
    /// The least time `generating` lasts, so the cards show the kitchen thinking
    /// (`LIVELINE_COOKSUGGEST_THINK_MS`).
    public let thinkTime: TimeInterval
    /// The shopping feature, whose own operation adds the decided dish's ingredients.
    public let shopping: ShoppingDomain
    let catalogue: [Recipe]

    public init(
        door: EngineDoor, shopping: ShoppingDomain, ttl: TimeInterval = 2 * 3600, thinkTime: TimeInterval = 2,
        catalogue: [Recipe] = RecipeCatalogue.all
    ) {
        self.door = door
        self.shopping = shopping
        self.ttl = ttl
        self.thinkTime = thinkTime
        self.catalogue = catalogue
    }

    func recipe(_ id: String?) -> Recipe? { id.flatMap { id in catalogue.first { $0.id == id } } }

    // MARK: Create

    /// Starts a session of `initiator` (with `partner`, or solo) for `day`: both cards' contexts
    /// at revision 1, and for a partner the invitation job. The same create again while that
    /// session is open (a double submit) gives it back with `created: false`: one session, one
    /// invitation, one card per device.
    public func create(
        householdID: HouseholdID, initiator: UserID, partner: UserID?, day: String, now: Date
    ) throws -> (view: CookSuggestSessionView, created: Bool) {
        try door.write(now: now) { change in
            let sql = change.sql
            let id = PublicID.make(prefix: Self.idPrefix)
            let pair = "\(householdID):\(initiator):\(partner.map { String($0.rawValue) } ?? "solo"):\(day)"
            let inserted = try sql.queryOne(
                """
                INSERT INTO cook_suggest_sessions
                    (id, household_id, day, initiator_id, partner_id, open_pair, state, rev, created_at, active_at)
                VALUES ($1, $2, $3, $4, $5, $6, 'answering', 1, $7, $7)
                ON CONFLICT (open_pair) DO NOTHING
                RETURNING id
                """,
                [
                    .text(id), SQLValue(householdID), .text(day), SQLValue(initiator), partner.map { SQLValue($0) } ?? .null, .text(pair),
                    SQLValue(now),
                ]
            )
            guard inserted != nil else {
                // The same create again: the open session it made.
                guard let existing = try sql.queryOne("SELECT id FROM cook_suggest_sessions WHERE open_pair = $1", [.text(pair)])?.string("id"),
                    let view = try view(existing, in: sql)
                else { throw StoreError(.database, "an open session of the same pair and day was there, and then it was not") }
                return (view, false)
            }
            let empty = String(decoding: try JSONEncoder().encode(CookSuggestAnswers()), as: UTF8.self)
            for (user, role) in [(initiator, "initiator")] + (partner.map { [($0, "partner")] } ?? []) {
                try sql.execute(
                    """
                    INSERT INTO cook_suggest_participants (session_id, user_id, role, joined, present, ready, answers)
                    VALUES ($1, $2, $3, $4, 1, 0, $5)
                    """,
                    [.text(id), SQLValue(user), .text(role), SQLValue(role == "initiator"), .text(empty)]
                )
            }
            guard let view = try view(id, in: sql) else { throw StoreError(.database, "the new session was not there") }
            for participant in view.participants {
                let attributes = CookSuggestCard.attributes(of: view, viewer: participant.userID)
                try change.createContext(
                    key: view.session.contextKey(of: participant.userID), activityType: CookSuggestActivityAttributes.typeName,
                    householdID: householdID, attributes: String(decoding: try JSONEncoder().encode(attributes), as: UTF8.self)
                )
                try change.recordChange(view.session.contextKey(of: participant.userID), note: "session created")
            }
            if partner != nil { try queueJob(.invite, session: id, due: now, in: sql) }
            return (view, true)
        }
    }

    /// A session's id starts with this.
    public static let idPrefix = "cs_"

    // MARK: Steps

    /// One step of `actor` on the session: refused (nothing changed) unless the session is in the
    /// caller's household (404), `actor` takes part and has not left (403), and the step is
    /// allowed in its state (409 naming the state). A step that changes nothing (ready again,
    /// joining twice) keeps the revision.
    public func step(
        _ action: CookSuggestAction, sessionID: String, householdID: HouseholdID, actor: UserID, answers: CookSuggestAnswers? = nil,
        proposalID: String? = nil, now: Date
    ) throws -> CookSuggestSessionView {
        try door.write(now: now) { change in
            let sql = change.sql
            guard let found = try view(sessionID, in: sql), found.session.householdID == householdID else {
                throw CookSuggestRefusal(.notFound, "there is no meal-planning session \(sessionID) in your household")
            }
            // Steps on one session queue up here (on PostgreSQL across instances too).
            try lockCards(of: found.session, in: change)
            guard var view = try view(sessionID, in: sql) else {
                throw CookSuggestRefusal(.notFound, "there is no meal-planning session \(sessionID) in your household")
            }
            guard let me = view.participant(actor) else {
                throw CookSuggestRefusal(.forbidden, "user \(actor) does not take part in session \(sessionID)")
            }
            guard me.present else { throw CookSuggestRefusal(.forbidden, "user \(actor) left session \(sessionID)") }
            guard action.isAllowed(in: view.session.state) else {
                throw CookSuggestRefusal(.conflict, "the session is \(view.session.state.rawValue): \(action.rawValue) is not possible now")
            }
            guard try record(action, by: me, in: view, answers: answers, proposalID: proposalID, sql: sql) else { return view }
            guard let reread = try self.view(sessionID, in: sql) else { throw StoreError(.database, "the session went away") }
            view = reread
            let next = Self.followUp(after: action, by: actor, in: view)
            if let decided = next.decided {
                try sql.execute("UPDATE cook_suggest_sessions SET decided_recipe_id = $2 WHERE id = $1", [.text(sessionID), .text(decided)])
            }
            // Due from now; generating runs once the think time is over (counted by the runner, so
            // a restart with another setting counts with that one).
            if let job = next.job { try queueJob(job, session: sessionID, due: now, in: sql) }
            return try transition(view, to: next.state, reason: next.reason, note: next.note, leaving: action == .leave ? actor : nil, in: change)
        }
    }

    /// Writes `me`'s step; false when it changed nothing (joined, ready or picked again).
    private func record(
        _ action: CookSuggestAction, by me: CookSuggestParticipantRecord, in view: CookSuggestSessionView, answers: CookSuggestAnswers?,
        proposalID: String?, sql: any SQLTransaction
    ) throws -> Bool {
        let sessionID = view.session.id
        let actor = me.userID
        switch action {
        case .join:
            if me.joined { return false }
            try setParticipant(view, actor, "joined = 1", in: sql)
        case .answers:
            let text = String(decoding: try JSONEncoder().encode(answers ?? CookSuggestAnswers()), as: UTF8.self)
            try sql.execute(
                "UPDATE cook_suggest_participants SET answers = $3, joined = 1 WHERE session_id = $1 AND user_id = $2",
                [.text(sessionID), SQLValue(actor), .text(text)])
            return (answers ?? CookSuggestAnswers()) != me.answers || !me.joined
        case .ready:
            if me.ready { return false }
            try setParticipant(view, actor, "ready = 1, joined = 1", in: sql)
        case .pick, .confirm:
            guard let proposalID, view.proposals.contains(where: { $0.recipeID == proposalID }) else {
                throw CookSuggestRefusal(
                    .badInput(field: "proposal_id"),
                    "proposal_id must be one of the session's proposals (\(view.proposals.map(\.recipeID).joined(separator: ", "))), not '\((proposalID ?? "").prefix(60))'"
                )
            }
            guard me.pick != proposalID || (action == .confirm && me.confirmed != proposalID) else { return false }
            // A new pick withdraws a confirmation of another proposal: an agreement is on what
            // both picked last.
            let assignments =
                action == .pick ? "pick = $3, confirmed = CASE WHEN confirmed = $3 THEN confirmed ELSE NULL END" : "pick = $3, confirmed = $3"
            try sql.execute(
                "UPDATE cook_suggest_participants SET \(assignments) WHERE session_id = $1 AND user_id = $2",
                [.text(sessionID), SQLValue(actor), .text(proposalID)])
        case .leave:
            try setParticipant(view, actor, "present = 0", in: sql)
        case .cancel:
            break
        }
        return true
    }

    /// What follows a step that changed the session (`docs/features/cook-suggest.md`).
    struct FollowUp: Sendable, Hashable {
        var state: CookSuggestState
        var reason: String?
        /// The line the cards' timelines get.
        var note: String
        /// The job that carries the session on from here.
        var job: CookSuggestJobKind?
        /// The proposal both agreed on.
        var decided: String?
    }

    /// The session's next state after `action` by `actor`, read back (`view`): cancelled when
    /// asked or when nobody is left, generating once everyone present is ready, finalizing once
    /// all confirmed one proposal; else it stays.
    static func followUp(after action: CookSuggestAction, by actor: UserID, in view: CookSuggestSessionView) -> FollowUp {
        let note = "\(action.rawValue) by \(actor)"
        if action == .cancel { return FollowUp(state: .cancelled, reason: "cancelled", note: "cancelled by \(actor)") }
        if view.present.isEmpty { return FollowUp(state: .cancelled, reason: "left", note: "the last participant left") }
        if view.session.state == .answering, view.present.allSatisfy(\.ready) {
            return FollowUp(state: .generating, note: note, job: .generate)
        }
        if view.session.state == .proposed, let agreed = agreement(view) {
            return FollowUp(state: .finalizing, note: note, job: .finalize, decided: agreed)
        }
        return FollowUp(state: view.session.state, note: note)
    }

    /// The proposal every present participant confirmed, when they all confirmed the same one.
    static func agreement(_ view: CookSuggestSessionView) -> String? {
        let confirmed = Set(view.present.map(\.confirmed))
        guard confirmed.count == 1, let only = confirmed.first, let agreed = only else { return nil }
        return agreed
    }

    private func setParticipant(_ view: CookSuggestSessionView, _ user: UserID, _ assignments: String, in sql: any SQLTransaction) throws {
        try sql.execute(
            "UPDATE cook_suggest_participants SET \(assignments) WHERE session_id = $1 AND user_id = $2", [.text(view.session.id), SQLValue(user)])
    }

    /// Moves the session to `state` (or keeps it), bumps its revision and every participant's card:
    /// the cards of a final session, and the card of a participant who just left, end (their
    /// dismissal ≈ 2 minutes later); the invitation is resolved when the session is final.
    func transition(
        _ view: CookSuggestSessionView, to state: CookSuggestState, reason: String? = nil, note: String, leaving: UserID? = nil,
        in change: EngineWrite
    ) throws -> CookSuggestSessionView {
        let sql = change.sql
        let now = change.now
        let session = view.session
        // Once final, or once its initiator left, the session no longer holds the pair's day: a
        // new create starts another one.
        let releasesPair = state.isFinal || leaving == session.initiatorID
        try sql.execute(
            """
            UPDATE cook_suggest_sessions SET state = $2, rev = rev + 1, active_at = $3,
                ended_at = CASE WHEN $4 = 1 THEN $3 ELSE ended_at END, cancel_reason = COALESCE($5, cancel_reason),
                open_pair = CASE WHEN $6 = 1 THEN NULL ELSE open_pair END
            WHERE id = $1
            """,
            [
                .text(session.id), .text(state.rawValue), SQLValue(now), SQLValue(state.isFinal), reason.map(SQLValue.text) ?? .null,
                SQLValue(releasesPair),
            ]
        )
        // The context's timeline says what happened and where the session is now.
        let line = "\(note): \(state.rawValue)"
        for participant in view.participants {
            let key = session.contextKey(of: participant.userID)
            if state.isFinal || participant.userID == leaving {
                // An ended card (one that ended before: its participant left) counts the revision on.
                if try change.end(key, note: line).alreadyEnded { try change.recordChange(key, note: line) }
            } else {
                try change.recordChange(key, note: line)
            }
        }
        if state.isFinal {
            if let partner = session.partnerID { try change.resolveNotification(userID: partner, dedupeKey: session.invitationKey) }
            // Nothing carries a final session on: proposals or finalizing not done yet will not be
            // (one running now finds the session final and is marked done by its runner). The
            // invitation still runs if it is due: it sees the session final and resolves what a
            // crash may have left unresolved.
            try sql.execute(
                """
                UPDATE cook_suggest_jobs SET done_at = $2, last_error = 'the session ended first'
                WHERE session_id = $1 AND done_at IS NULL AND kind <> 'invite' AND (lease_until IS NULL OR lease_until < $2)
                """,
                [.text(session.id), SQLValue(now)])
        }
        guard let after = try self.view(session.id, in: sql) else { throw StoreError(.database, "the session went away") }
        return after
    }

    // MARK: Reads

    /// The session as the caller sees it, from one read: nil when it is not in `householdID`.
    public func read(sessionID: String, householdID: HouseholdID) throws -> CookSuggestSessionView? {
        try door.read { read in
            guard let view = try view(sessionID, in: read.sql), view.session.householdID == householdID else { return nil }
            return view
        }
    }

    /// The session's revision, when it is in `householdID` and `participant` takes part (the
    /// `since_rev` shortcut); nil otherwise.
    public func revision(sessionID: String, householdID: HouseholdID, participant: UserID) throws -> Int? {
        try door.read { read in
            try read.sql.queryOne(
                """
                SELECT s.rev FROM cook_suggest_sessions s JOIN cook_suggest_participants p ON p.session_id = s.id
                WHERE s.id = $1 AND s.household_id = $2 AND p.user_id = $3
                """, [.text(sessionID), SQLValue(householdID), SQLValue(participant)]
            )?.int("rev")
        }
    }

    /// The session, its participants (the initiator first), proposals and the users, as of `sql`.
    func view(_ sessionID: String, in sql: any SQLTransaction) throws -> CookSuggestSessionView? {
        guard
            let session = try sql.queryOne("SELECT \(CookSuggestSession.columns) FROM cook_suggest_sessions WHERE id = $1", [.text(sessionID)])
                .map(CookSuggestSession.init(row:))
        else { return nil }
        let participants = try sql.query(
            """
            SELECT \(CookSuggestParticipantRecord.columns) FROM cook_suggest_participants WHERE session_id = $1
            ORDER BY CASE role WHEN 'initiator' THEN 0 ELSE 1 END
            """, [.text(sessionID)]
        ).map(CookSuggestParticipantRecord.init(row:))
        let proposals = try sql.query(
            "SELECT position, recipe_id, score, reasons FROM cook_suggest_proposals WHERE session_id = $1 ORDER BY position",
            [.text(sessionID)]
        ).map { row in
            let codes = try JSONDecoder().decode([String].self, from: Data(try row.string("reasons").utf8))
            return CookSuggestProposalRecord(
                position: try row.int("position"), recipeID: try row.string("recipe_id"), score: try row.double("score"),
                reasons: codes.compactMap(ProposalReason.init(code:)))
        }
        var users: [UserID: CookSuggestUser] = [:]
        for row in try sql.query(
            """
            SELECT u.id, u.name, u.avatar_tint, u.emoji, u.locale FROM users u
            JOIN cook_suggest_participants p ON p.user_id = u.id WHERE p.session_id = $1
            """, [.text(sessionID)])
        {
            let id = UserID(try row.int("id"))
            users[id] = CookSuggestUser(
                id: id, name: try row.string("name"), avatarTint: try row.string("avatar_tint"), emoji: try row.string("emoji"),
                locale: try row.string("locale"))
        }
        var cards: [UserID: CookSuggestSessionView.CardState] = [:]
        for participant in participants {
            if let row = try sql.queryOne("SELECT rev, state FROM contexts WHERE key = $1", [.text(session.contextKey(of: participant.userID))]) {
                cards[participant.userID] = .init(rev: try row.int("rev"), ended: try row.string("state") == "ended")
            }
        }
        return CookSuggestSessionView(session: session, participants: participants, proposals: proposals, users: users, cards: cards)
    }

    // MARK: Jobs

    /// Queues `kind` for the session (once: a job already there stays as it is).
    func queueJob(_ kind: CookSuggestJobKind, session: String, due: Date, in sql: any SQLTransaction) throws {
        try sql.execute(
            "INSERT INTO cook_suggest_jobs (session_id, kind, due_at) VALUES ($1, $2, $3) ON CONFLICT (session_id, kind) DO NOTHING",
            [.text(session), .text(kind.rawValue), SQLValue(due)])
    }

    /// Generates the proposals of a session in `generating` and moves it to `proposed` (with none
    /// when no recipe fits: the card says so). Nothing happens to a session in any other state.
    func generate(sessionID: String, now: Date) throws {
        try door.write(now: now) { change in
            let sql = change.sql
            guard let found = try view(sessionID, in: sql) else { return }
            try lockCards(of: found.session, in: change)
            guard let view = try view(sessionID, in: sql), view.session.state == .generating else { return }
            let week = ShoppingWeek.containing(view.session.day)
            let openItems =
                try week.map { week in
                    try shopping.items(week: week, householdID: view.session.householdID, in: change).filter { !$0.done }.map(\.label)
                } ?? []
            let since = now.addingTimeInterval(-7 * 24 * 3600)
            let recent = try sql.query(
                """
                SELECT decided_recipe_id FROM cook_suggest_sessions
                WHERE household_id = $1 AND state = 'decided' AND ended_at >= $2 AND decided_recipe_id IS NOT NULL
                """, [SQLValue(view.session.householdID), SQLValue(since)]
            ).map { try $0.string("decided_recipe_id") }
            let proposals = ProposalScoring.propose(
                .init(answers: view.present.map(\.answers), openItems: openItems, recentlyDecided: Set(recent)), catalogue: catalogue)
            for (position, proposal) in proposals.enumerated() {
                let reasons = String(decoding: try JSONEncoder().encode(proposal.reasons.map(\.code)), as: UTF8.self)
                try sql.execute(
                    "INSERT INTO cook_suggest_proposals (session_id, position, recipe_id, score, reasons) VALUES ($1, $2, $3, $4, $5)",
                    [.text(sessionID), SQLValue(position + 1), .text(proposal.recipe.id), .real(proposal.score), .text(reasons)])
            }
            _ = try transition(view, to: .proposed, note: "\(proposals.count) proposals", in: change)
        }
    }

    /// Adds the decided dish's ingredients that are not on the list of the week of the session's day
    /// (as the initiator, through the shopping feature's own operation: its revision, story and
    /// card follow) and moves the session to `decided`, in one transaction: a crash before its
    /// commit adds nothing, and it is done again after the restart.
    func finalize(sessionID: String, now: Date) throws {
        try door.write(now: now) { change in
            let sql = change.sql
            guard let found = try view(sessionID, in: sql) else { return }
            try lockCards(of: found.session, in: change)
            guard let view = try view(sessionID, in: sql), view.session.state == .finalizing else { return }
            let initiator = view.session.initiatorID
            let locale = view.users[initiator]?.locale ?? "de"
            if let recipe = recipe(view.session.decidedRecipeID), let week = ShoppingWeek.containing(view.session.day) {
                // The week's writes by other instances queue up before the list is read.
                try shopping.lockWeek(week, householdID: view.session.householdID, in: change)
                var onList = try shopping.items(week: week, householdID: view.session.householdID, in: change).map(\.label)
                for ingredient in recipe.ingredients where !onList.contains(where: { IngredientMatch.matches(ingredient.name, $0) }) {
                    let label = ingredient.name.text(locale)
                    _ = try shopping.addItem(
                        week: week, householdID: view.session.householdID, actor: initiator, label: label, price: nil, in: change)
                    onList.append(label)
                }
            }
            _ = try transition(view, to: .decided, note: "decided: \(view.session.decidedRecipeID ?? "?")", in: change)
        }
    }

    /// Holds the cards of both participants to the end of the transaction, in key order, as the
    /// dispatcher's recording and every write holding several contexts take them: steps on one
    /// session queue up (across instances too), and none waits in a circle with a push's
    /// recording (`docs/engine.md`, "Storage").
    func lockCards(of session: CookSuggestSession, in change: EngineWrite) throws {
        try change.lockContexts([session.initiatorID, session.partnerID].compactMap { $0 }.map(session.contextKey(of:)))
    }

    /// Cancels the open sessions nobody took a step in for ``ttl``; returns how many.
    @discardableResult
    public func expire(now: Date) throws -> Int {
        let cutoff = now.addingTimeInterval(-ttl)
        let lapsed = try door.read { read in
            try read.sql.query(
                "SELECT id FROM cook_suggest_sessions WHERE ended_at IS NULL AND active_at < $1 ORDER BY active_at LIMIT 100", [SQLValue(cutoff)]
            ).map { try $0.string("id") }
        }
        var count = 0
        var failures: [String] = []
        for id in lapsed {
            do {
                if try expire(id, cutoff: cutoff, now: now) { count += 1 }
            } catch {
                failures.append("\(id): \(error)")
            }
        }
        // One that fails holds up no other; the sweep tries it again.
        if !failures.isEmpty { throw StoreError(.database, "cancelling lapsed sessions failed for \(failures.joined(separator: "; "))") }
        return count
    }

    /// Cancels session `id` when it still lapsed once its lock is held; true when it did.
    private func expire(_ id: String, cutoff: Date, now: Date) throws -> Bool {
        try door.write(now: now) { change in
            guard let found = try view(id, in: change.sql) else { return false }
            try lockCards(of: found.session, in: change)
            // A step meanwhile (on another instance) keeps it.
            guard let view = try view(id, in: change.sql), !view.session.state.isFinal, view.session.activeAt < cutoff else { return false }
            _ = try transition(view, to: .cancelled, reason: "expired", note: "no step for \(Int(ttl)) s", in: change)
            return true
        }
    }
}

/// A job that carries a session on without a request.
enum CookSuggestJobKind: String, Sendable, Hashable, CaseIterable {
    /// The partner's invitation: push-to-start on their devices and the notification.
    case invite
    /// The proposals, once everyone is ready (after the think time).
    case generate
    /// The decided dish's ingredients onto the shopping list, then `decided`.
    case finalize
}
