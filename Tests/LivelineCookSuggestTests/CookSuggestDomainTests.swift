import Foundation
import LivelineEngine
import LivelineLog
import LivelineModel
import LivelineShopping
import LivelineStore
import LivelineTestSupport
import Synchronization
import Testing

@testable import LivelineCookSuggest
import LivelineCookSuggestModel

/// The meal-planning state machine on a real database (SQLite, or PostgreSQL with
/// `LIVELINE_TEST_BACKEND=postgres`): every state × every action, the transitions, the cards.
@Suite struct CookSuggestDomainTests {
    /// Shared by the two threads of the concurrent test, which only call its steps.
    final class Fixture: @unchecked Sendable {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-cooksuggest-\(UUID().uuidString)")
        let store: Store
        let domain: CookSuggestDomain
        let dennis: UserRecord
        let jaqueline: UserRecord
        let now = Date(timeIntervalSince1970: 1_781_800_000)
        static let day = "2026-06-18"

        init() throws {
            store = try TestBackend.openStore(
                folder: folder, features: [ShoppingFeature().featureMigrations, CookSuggestFeature().featureMigrations])
            let door = EngineDoor(store: store, clock: { Date() })
            // Think time an hour: a session stays `generating` until a test generates.
            domain = CookSuggestDomain(door: door, shopping: ShoppingDomain(door: door), thinkTime: 3600)
            dennis = try store.accounts.createUser(
                household: "Fisch", name: "Dennis", avatarTint: "azure", emoji: "🐟", locale: "de", tokenHash: "d", now: now)
            jaqueline = try store.accounts.createUser(
                household: "Fisch", name: "Jaqueline", avatarTint: "coral", emoji: "🐠", locale: "en", tokenHash: "j", now: now)
        }

        func stop() { try? FileManager.default.removeItem(at: folder) }

        private var days = 0

        /// A new session of Dennis with Jaqueline; each on a day of its own unless `day` is given
        /// (one pair has one open session per day).
        func create(day: String? = nil) throws -> String {
            days += 1
            let day = day ?? String(format: "2026-%02d-%02d", 1 + days / 28, 1 + days % 28)
            return try domain.create(householdID: dennis.householdID, initiator: dennis.id, partner: jaqueline.id, day: day, now: now).view.session.id
        }

        @discardableResult
        func step(_ action: CookSuggestAction, _ id: String, _ user: UserRecord, proposal: String? = nil) throws -> CookSuggestSessionView {
            try domain.step(action, sessionID: id, householdID: dennis.householdID, actor: user.id, proposalID: proposal, now: now)
        }

        func view(_ id: String) throws -> CookSuggestSessionView { try #require(try domain.read(sessionID: id, householdID: dennis.householdID)) }

        /// A new session brought to `state` through the domain's own steps.
        func session(in state: CookSuggestState) throws -> String {
            let id = try create()
            if state == .answering { return id }
            if state == .cancelled {
                try step(.cancel, id, dennis)
                return id
            }
            try step(.ready, id, dennis)
            try step(.ready, id, jaqueline)
            if state == .generating { return id }
            try domain.generate(sessionID: id, now: now)
            if state == .proposed { return id }
            let first = try #require(try view(id).proposals.first?.recipeID)
            try step(.confirm, id, dennis, proposal: first)
            try step(.confirm, id, jaqueline, proposal: first)
            if state == .finalizing { return id }
            try domain.finalize(sessionID: id, now: now)
            return id
        }

        func card(_ id: String, _ user: UserRecord) throws -> CookSuggestActivityAttributes.ContentState {
            let view = try view(id)
            let rev = try #require(try store.contexts.revision(key: view.session.contextKey(of: user.id)))
            return CookSuggestCard.contentState(of: view, viewer: user.id, rev: rev)
        }
    }

    @Test func everyStateAndActionGivesTheSpecsAnswer() throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let allowed: [CookSuggestState: Set<CookSuggestAction>] = [
            .answering: [.join, .answers, .ready, .leave, .cancel],
            .generating: [.join, .leave, .cancel],
            .proposed: [.join, .pick, .confirm, .leave, .cancel],
            .finalizing: [.join, .leave, .cancel],
            .decided: [], .cancelled: [],
        ]
        for state in CookSuggestState.allCases {
            for action in CookSuggestAction.allCases {
                let id = try fixture.session(in: state)
                #expect(try fixture.view(id).session.state == state)
                let before = try fixture.view(id)
                let proposal = before.proposals.first?.recipeID
                do {
                    try fixture.step(action, id, fixture.jaqueline, proposal: proposal)
                    #expect(allowed[state]?.contains(action) == true, "\(action) in \(state) was allowed")
                } catch let refusal as CookSuggestRefusal {
                    #expect(allowed[state]?.contains(action) == false, "\(action) in \(state): \(refusal)")
                    #expect(
                        refusal.kind == .conflict && refusal.message.contains("the session is \(state.rawValue)"), "\(action) in \(state): \(refusal)"
                    )
                    #expect(try fixture.view(id) == before, "a refused step changes nothing")
                }
            }
        }
    }

    @Test func someoneWhoLeftCanDoNothingMoreAndChangesNothing() throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        for action in CookSuggestAction.allCases {
            let id = try fixture.create()
            try fixture.step(.leave, id, fixture.jaqueline)
            let before = try fixture.view(id)
            do {
                try fixture.step(action, id, fixture.jaqueline, proposal: "shakshuka")
                Issue.record("\(action) after leaving was allowed")
            } catch let refusal as CookSuggestRefusal {
                #expect(refusal.kind == .forbidden && refusal.message.contains("left"), "\(action): \(refusal)")
            }
            #expect(try fixture.view(id) == before)
        }
    }

    @Test func aNewPickWithdrawsAConfirmationOfAnotherProposal() throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let id = try fixture.session(in: .proposed)
        let proposals = try fixture.view(id).proposals.map(\.recipeID)
        try #require(proposals.count >= 2)
        try fixture.step(.confirm, id, fixture.jaqueline, proposal: proposals[0])
        try fixture.step(.pick, id, fixture.jaqueline, proposal: proposals[1])
        #expect(try fixture.view(id).participant(fixture.jaqueline.id)?.confirmed == nil)
        try fixture.step(.confirm, id, fixture.dennis, proposal: proposals[0])
        #expect(try fixture.view(id).session.state == .proposed, "her confirmation of the first was withdrawn by her new pick")
        try fixture.step(.confirm, id, fixture.jaqueline, proposal: proposals[0])
        #expect(try fixture.view(id).session.state == .finalizing)
    }

    @Test func anInitiatorWhoLeftStartsANewSessionForTheSameDay() throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let first = try fixture.create(day: Fixture.day)
        try fixture.step(.leave, first, fixture.dennis)
        #expect(try fixture.view(first).session.state == .answering, "she is still in it")
        let second = try fixture.domain.create(
            householdID: fixture.dennis.householdID, initiator: fixture.dennis.id, partner: fixture.jaqueline.id, day: Fixture.day, now: fixture.now)
        #expect(second.created && second.view.session.id != first)
    }

    /// A runner that died holding a job (its server was killed) leaves it leased: no one runs it
    /// until the lease is over, then the next runner does.
    @Test func aJobWhoseRunnerDiedRunsAgainOnceItsLeaseIsOver() throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let id = try fixture.create()
        try fixture.step(.ready, id, fixture.dennis)
        try fixture.step(.ready, id, fixture.jaqueline)
        let jobs = CookSuggestJobs(domain: fixture.domain, logger: .discarding)
        let thought = fixture.now.addingTimeInterval(fixture.domain.thinkTime + 1)
        jobs.runDue(engine: nil, now: fixture.now.addingTimeInterval(fixture.domain.thinkTime - 1))
        #expect(try fixture.view(id).session.state == .generating, "not before the think time is over")
        try fixture.store.database.write { transaction in
            try transaction.execute(
                "UPDATE cook_suggest_jobs SET lease_until = $2, attempts = 1 WHERE session_id = $1 AND kind = 'generate'",
                [.text(id), SQLValue(thought.addingTimeInterval(CookSuggestJobs.lease))])
        }
        jobs.runDue(engine: nil, now: thought.addingTimeInterval(CookSuggestJobs.lease - 1))
        #expect(try fixture.view(id).session.state == .generating, "its runner's while the lease lasts")
        jobs.runDue(engine: nil, now: thought.addingTimeInterval(CookSuggestJobs.lease + 1))
        #expect(try fixture.view(id).session.state == .proposed)
        let done = try fixture.store.database.read { transaction in
            try transaction.queryOne("SELECT attempts, done_at FROM cook_suggest_jobs WHERE session_id = $1 AND kind = 'generate'", [.text(id)])
        }
        #expect(try done?.int("attempts") == 2 && done?.optionalDate("done_at") != nil)
    }

    @Test func aDayIsWrittenWithDigits() {
        #expect(ShoppingWeek.containing("2026-06-18")?.monday == "2026-06-15")
        #expect(ShoppingWeek.containing("2026-01-01")?.monday == "2025-12-29", "back across the year")
        for bad in ["2026-+6-18", "2026-06-1 ", "2026-13-01", "2026-02-29", "26-06-18", "2026/06/18", "２０２６-06-18"] {
            #expect(ShoppingWeek.containing(bad) == nil, "\(bad)")
        }
    }

    @Test func bothReadyMakeOneTransitionAndOneJobAndTheCardsFollow() throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let id = try fixture.create()
        #expect(try fixture.card(id, fixture.dennis).statusLabel == "Jaqueline füllt aus …")
        #expect(try fixture.card(id, fixture.jaqueline).statusLabel == "Dennis is filling in …", "in her language")
        try fixture.step(.ready, id, fixture.jaqueline)
        let ready = try fixture.card(id, fixture.dennis)
        #expect(ready.statusLabel == "Jaqueline ist bereit" && ready.partnerReady && ready.deepLinkStep == "answers")
        #expect(try fixture.card(id, fixture.jaqueline).deepLinkStep == "waiting")
        // Ready twice changes nothing; the second ready makes the one transition.
        let again = try fixture.step(.ready, id, fixture.jaqueline)
        #expect(again.session.rev == 2)
        try fixture.step(.ready, id, fixture.dennis)
        let generating = try fixture.view(id)
        #expect(generating.session.state == .generating && generating.session.rev == 3)
        #expect(try fixture.card(id, fixture.dennis).statusLabel == "Die Küche denkt nach …")
        #expect(try fixture.card(id, fixture.jaqueline).statusLabel == "The kitchen is thinking …")
        let jobs = try fixture.store.database.read { transaction in
            try transaction.query("SELECT kind FROM cook_suggest_jobs WHERE session_id = $1 ORDER BY kind", [.text(id)]).map { try $0.string("kind") }
        }
        #expect(jobs == ["generate", "invite"])
        // Every card's revision is the session's.
        for user in [fixture.dennis, fixture.jaqueline] {
            #expect(try fixture.store.contexts.revision(key: generating.session.contextKey(of: user.id)) == 3)
        }
    }

    /// Both at the same instant, many times over (on PostgreSQL from two connections at once):
    /// one transition, one generating job, every revision counted once.
    @Test func bothGettingReadyAtTheSameInstantMakeExactlyOneTransition() throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        for _ in 0..<20 {
            let id = try fixture.create()
            let failures = Mutex<[String]>([])
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                do {
                    try fixture.step(.ready, id, index == 0 ? fixture.dennis : fixture.jaqueline)
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
            #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
            let view = try fixture.view(id)
            #expect(view.session.state == .generating && view.session.rev == 3, "\(view.session.state) at rev \(view.session.rev)")
            let jobs = try fixture.store.database.read { transaction in
                try transaction.queryOne(
                    "SELECT COUNT(*) AS n FROM cook_suggest_jobs WHERE session_id = $1 AND kind = 'generate'", [.text(id)])?.int("n")
            }
            #expect(jobs == 1)
            for user in [fixture.dennis, fixture.jaqueline] {
                #expect(try fixture.store.contexts.revision(key: view.session.contextKey(of: user.id)) == 3)
            }
        }
    }

    @Test func proposalsAreFilteredScoredAndDeterministic() throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        var results: [[String]] = []
        for _ in 0..<2 {
            let id = try fixture.create()
            _ = try fixture.domain.step(
                .answers, sessionID: id, householdID: fixture.dennis.householdID, actor: fixture.dennis.id,
                answers: CookSuggestAnswers(maxMinutes: 30, diet: ["vegetarian"], moods: ["quick"]), now: fixture.now)
            _ = try fixture.domain.step(
                .answers, sessionID: id, householdID: fixture.dennis.householdID, actor: fixture.jaqueline.id,
                answers: CookSuggestAnswers(maxMinutes: 45, diet: ["glutenFree"]), now: fixture.now)
            try fixture.step(.ready, id, fixture.dennis)
            try fixture.step(.ready, id, fixture.jaqueline)
            try fixture.domain.generate(sessionID: id, now: fixture.now)
            let view = try fixture.view(id)
            #expect(view.session.state == .proposed && view.proposals.count == 3)
            for proposal in view.proposals {
                let recipe = try #require(RecipeCatalogue.all.first { $0.id == proposal.recipeID })
                #expect(recipe.tags.isSuperset(of: ["vegetarian", "glutenFree"]) && recipe.minutes <= 30, "\(recipe.id)")
            }
            #expect(try fixture.card(id, fixture.dennis).statusLabel == "3 Vorschläge sind da")
            results.append(view.proposals.map(\.recipeID))
            try fixture.step(.cancel, id, fixture.dennis)
        }
        #expect(results[0] == results[1], "the same inputs give the same three proposals")
    }

    @Test func noMatchingRecipeIsProposedWithNoneAndAnHonestLabel() throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let id = try fixture.create()
        _ = try fixture.domain.step(
            .answers, sessionID: id, householdID: fixture.dennis.householdID, actor: fixture.dennis.id,
            answers: CookSuggestAnswers(maxMinutes: 5, diet: ["vegan", "glutenFree"]), now: fixture.now)
        try fixture.step(.ready, id, fixture.dennis)
        try fixture.step(.ready, id, fixture.jaqueline)
        try fixture.domain.generate(sessionID: id, now: fixture.now)
        #expect(try fixture.view(id).session.state == .proposed && fixture.view(id).proposals.isEmpty)
        #expect(try fixture.card(id, fixture.dennis).statusLabel == "Kein Gericht passt zu euren Antworten")
        #expect(try fixture.card(id, fixture.jaqueline).proposalCount == 0)
    }

    @Test func decidingAddsTheMissingIngredientsToThatWeeksListThroughTheShoppingFeature() throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let week = try #require(ShoppingWeek.containing(Fixture.day))
        #expect(week.monday == "2026-06-15")
        let shopping = ShoppingDomain(door: fixture.domain.door)
        let id = try fixture.create(day: Fixture.day)
        try fixture.step(.ready, id, fixture.dennis)
        try fixture.step(.ready, id, fixture.jaqueline)
        try fixture.domain.generate(sessionID: id, now: fixture.now)
        let proposal = try #require(try fixture.view(id).proposals.first?.recipeID)
        let recipe = try #require(RecipeCatalogue.all.first { $0.id == proposal })
        // One ingredient is on the list already (done): it is not added again.
        let first = try #require(recipe.ingredients.first)
        let (item, _) = try shopping.addItem(
            week: week, householdID: fixture.dennis.householdID, actor: fixture.jaqueline.id, label: first.name.de, price: nil, now: fixture.now)
        _ = try shopping.updateItem(
            id: item.id, householdID: fixture.dennis.householdID, actor: fixture.jaqueline.id, done: true, label: nil, price: nil, position: nil,
            now: fixture.now)
        try fixture.step(.pick, id, fixture.jaqueline, proposal: proposal)
        #expect(try fixture.card(id, fixture.dennis).statusLabel == "Vorschlag: \(recipe.title.de)?")
        #expect(try fixture.card(id, fixture.dennis).deepLinkStep == "confirm")
        try fixture.step(.confirm, id, fixture.jaqueline, proposal: proposal)
        #expect(try fixture.view(id).session.state == .proposed, "one confirmation is not an agreement")
        try fixture.step(.confirm, id, fixture.dennis, proposal: proposal)
        #expect(try fixture.view(id).session.state == .finalizing)
        #expect(try fixture.card(id, fixture.jaqueline).statusLabel == "Being served …")
        try fixture.domain.finalize(sessionID: id, now: fixture.now)
        let decided = try fixture.view(id)
        #expect(decided.session.state == .decided && decided.session.decidedRecipeID == proposal)
        let card = try fixture.card(id, fixture.dennis)
        #expect(card.statusLabel == "Heute: \(recipe.title.de)" && card.decidedTitle == recipe.title.de && card.ended == true)
        let labels = try shopping.items(week: week, householdID: fixture.dennis.householdID).map(\.label)
        #expect(labels == recipe.ingredients.map(\.name.de), "each ingredient once, the one on the list not again")
        // The initiator added them: the week's story says so.
        let events = try fixture.store.database.read { transaction in
            try transaction.query("SELECT actor_id FROM shopping_events WHERE action = 'added' ORDER BY id").map { try $0.int("actor_id") }
        }
        #expect(events.dropFirst().allSatisfy { $0 == fixture.dennis.id.rawValue } && events.count == recipe.ingredients.count)
        // Finalizing again (a job run twice) changes nothing.
        try fixture.domain.finalize(sessionID: id, now: fixture.now)
        #expect(try shopping.items(week: week, householdID: fixture.dennis.householdID).count == recipe.ingredients.count)
    }

    @Test func theLastToLeaveCancelsAndEveryCardEnds() throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let id = try fixture.create()
        try fixture.step(.leave, id, fixture.jaqueline)
        let after = try fixture.view(id)
        #expect(after.session.state == .answering)
        #expect(try fixture.card(id, fixture.dennis).statusLabel == "Jaqueline ist gegangen")
        let hers = try fixture.card(id, fixture.jaqueline)
        #expect(hers.ended == true && hers.statusLabel == "Cancelled", "her card ended when she left")
        #expect(try fixture.store.contexts.context(key: after.session.contextKey(of: fixture.jaqueline.id))?.state == .ended)
        // Dennis alone: his ready is everyone's.
        try fixture.step(.ready, id, fixture.dennis)
        #expect(try fixture.view(id).session.state == .generating)
        try fixture.step(.leave, id, fixture.dennis)
        let cancelled = try fixture.view(id)
        #expect(cancelled.session.state == .cancelled && cancelled.session.cancelReason == "left")
        #expect(try fixture.store.contexts.context(key: cancelled.session.contextKey(of: fixture.dennis.id))?.state == .ended)
        #expect(try fixture.card(id, fixture.dennis).statusLabel == "Abgesagt")
    }

    @Test func aSessionNobodyTouchesForTheTTLIsCancelled() throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let id = try fixture.create()
        #expect(try fixture.domain.expire(now: fixture.now.addingTimeInterval(fixture.domain.ttl - 1)) == 0)
        #expect(try fixture.domain.expire(now: fixture.now.addingTimeInterval(fixture.domain.ttl + 1)) == 1)
        let view = try fixture.view(id)
        #expect(view.session.state == .cancelled && view.session.cancelReason == "expired")
    }

    @Test func theSameCreateTwiceIsOneSession() throws {
        let fixture = try Fixture()
        defer { fixture.stop() }
        let first = try fixture.domain.create(
            householdID: fixture.dennis.householdID, initiator: fixture.dennis.id, partner: fixture.jaqueline.id, day: Fixture.day, now: fixture.now)
        let second = try fixture.domain.create(
            householdID: fixture.dennis.householdID, initiator: fixture.dennis.id, partner: fixture.jaqueline.id, day: Fixture.day, now: fixture.now)
        #expect(first.created && !second.created && first.view.session.id == second.view.session.id)
        let solo = try fixture.domain.create(
            householdID: fixture.dennis.householdID, initiator: fixture.dennis.id, partner: nil, day: Fixture.day, now: fixture.now)
        #expect(solo.created && solo.view.session.isSolo && solo.view.participants.count == 1)
        let invites = try fixture.store.database.read { transaction in
            try transaction.queryOne("SELECT COUNT(*) AS n FROM cook_suggest_jobs WHERE kind = 'invite'")?.int("n")
        }
        #expect(invites == 1, "a solo session invites nobody")
    }
}
