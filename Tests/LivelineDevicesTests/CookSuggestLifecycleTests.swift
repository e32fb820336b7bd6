import Foundation
import LivelineApps
import LivelineClient
import LivelineCookSuggestModel
import LivelineDevices
import LivelineModel
import LivelineStore
import LivelineTestSupport
import Testing

/// How meal-planning cards end (`docs/features/cook-suggest.md`): cancel, the last participant
/// leaving and the TTL each end every card as `cancelled` and resolve the invitation; an invitation
/// sent again starts no second card and shows no second notification.
@Suite struct CookSuggestLifecycleTests {
    final class Scene {
        let harness: DeviceHarness
        let jaqueline: (userID: UserID, bearer: String)
        let apps: [CookSuggestApp]
        var his: CookSuggestApp { apps[0] }
        var hers: CookSuggestApp { apps[1] }

        init() async throws {
            harness = try DeviceHarness(serverOnClock: true) {
                $0.quietChangeDebounce = 0
                $0.environment["LIVELINE_COOKSUGGEST_THINK_MS"] = "0"
                $0.environment["LIVELINE_COOKSUGGEST_TTL_S"] = "600"
            }
            let (member, phones) = try await harness.couple()
            jaqueline = member
            apps = harness.cookSuggestApps(phones, jaqueline: member)
        }

        /// Dennis invites Jaqueline for `day`: every device shows the card.
        func invite(_ day: String) async throws -> String {
            let id = try await his.start(date: day, partner: jaqueline.userID.rawValue).id
            #expect(await harness.until(timeout: 20) { self.apps.allSatisfy { $0.card(id) != nil } }, "every device shows the card of \(day)")
            return id
        }

        /// Every device's card of `id` ended as cancelled, and her invitation is resolved.
        func endedCancelled(_ id: String) async throws -> Bool {
            let ended = await harness.until(timeout: 20) {
                self.apps.allSatisfy { $0.card(id)?.state == "cancelled" && $0.card(id)?.ended == true }
            }
            let invitation = try await hers.client.notifications().first { $0.dedupeKey == "cs-invite-\(id)" }
            return ended && invitation?.resolved == true
        }

        func stop() { harness.stop() }
    }

    @Test func cancelTheLastLeaveAndTheTTLEachEndEveryCardAndResolveTheInvitation() async throws {
        let scene = try await Scene()
        defer { scene.stop() }
        let cancelled = try await scene.invite("2026-06-18")
        try await scene.hers.cancel(cancelled)
        #expect(try await scene.endedCancelled(cancelled), "cancel")
        #expect(scene.his.card(cancelled)?.statusLabel == "Abgesagt")

        let left = try await scene.invite("2026-06-19")
        try await scene.his.leave(left)
        #expect(await scene.harness.until { scene.his.card(left)?.ended == true }, "his card ended when he left")
        #expect(scene.hers.card(left)?.ended == nil && scene.hers.card(left)?.statusLabel == "Dennis ist gegangen")
        try await scene.hers.leave(left)
        #expect(try await scene.endedCancelled(left), "the last one leaving")

        let forgotten = try await scene.invite("2026-06-20")
        scene.harness.clock.advance(by: 601)
        #expect(try await scene.endedCancelled(forgotten), "the TTL")
        let session = try await scene.his.client.cookSuggestSession(forgotten)
        #expect(session.state == "cancelled")
    }

    @Test func anInvitationSentAgainStartsNoSecondCardAndShowsNoSecondNotification() async throws {
        let scene = try await Scene()
        defer { scene.stop() }
        let id = try await scene.invite("2026-06-18")
        let link = "/cook-suggest/\(id)"
        #expect(await scene.harness.until { scene.hers.device.notifications.contains { $0.link == link } })
        // As if the server died after sending and before it marked the job done: it runs again.
        let store = scene.harness.app.store
        try store.database.write { transaction in
            try transaction.execute(
                "UPDATE cook_suggest_jobs SET done_at = NULL, due_at = 0 WHERE session_id = $1 AND kind = 'invite'", [.text(id)])
        }
        scene.harness.clock.advance(by: 2)  // the engine's sweep runs on the server's (manual) clock
        let rerun = await scene.harness.until(timeout: 20) {
            (try? store.database.read { transaction in
                try transaction.queryOne(
                    "SELECT done_at FROM cook_suggest_jobs WHERE session_id = $1 AND kind = 'invite'", [.text(id)])?.optionalDate("done_at")
            }) != nil
        }
        #expect(rerun, "the invitation ran again")
        for app in scene.apps {
            let cards = app.device.activities.filter { $0.contextKey.hasPrefix("cooksuggest:\(id):") }
            #expect(cards.count == 1, "\(app.device.id): \(cards.count) cards")
        }
        #expect(scene.hers.device.notifications.filter { $0.link == link }.count == 1)
        #expect(try await scene.hers.client.notifications().filter { $0.dedupeKey == "cs-invite-\(id)" }.count == 1)
    }
}
