import Foundation
import LivelineApps
import LivelineClient
import LivelineCookSuggestModel
import LivelineDevices
import LivelineModel
import LivelineStore
import LivelineTestSupport
import Testing

/// Meal planning's cards under lost and reordered pushes (`docs/features/cook-suggest.md`, "The
/// card"): push = wake-up, pull = truth. Each participant's card is their own payload; after its
/// next pull every card equals what the server says that participant's card is.
@Suite struct CookSuggestConvergenceTests {
    @Test func withAFifthOfThePushesLostAndTheRestReorderedEveryCardEqualsItsTruthAfterItsNextPull() async throws {
        let harness = try DeviceHarness {
            $0.quietChangeDebounce = 0
            $0.environment["LIVELINE_COOKSUGGEST_THINK_MS"] = "0"
        }
        defer { harness.stop() }
        let (jaqueline, phones) = try await harness.couple()
        let apps = harness.cookSuggestApps(phones, jaqueline: jaqueline)
        let (his, hers) = (apps[0], apps[1])
        let id = try await his.start(date: "2026-06-18", partner: jaqueline.userID.rawValue).id
        #expect(await harness.until(timeout: 20) { apps.allSatisfy { $0.card(id) != nil } }, "every device shows the card")

        harness.fleet.setFaults(DeviceFaults(seed: 2026, dropShare: 0.2, reorderWindow: 3))
        harness.fleet.setPullsOnWake(false)
        var random = SplitMix64(seed: 19)
        for step in 0..<30 {
            let app = random.next() % 2 == 0 ? his : hers
            let minutes = 20 + Int(random.next() % 40)
            try await app.answer(id, CookSuggestAnswers(maxMinutes: minutes, moods: step % 3 == 0 ? ["quick"] : ["comfort"]))
        }
        try await hers.ready(id)
        try await his.ready(id)
        #expect(await harness.until(timeout: 20) { proposed(harness, id) })
        let proposals = try #require(try await his.client.cookSuggestSession(id).proposals?.map(\.id))
        #expect(!proposals.isEmpty)
        for _ in 0..<20 {
            let app = random.next() % 2 == 0 ? his : hers
            try await app.pick(id, proposals[Int(random.next() % UInt64(proposals.count))])
        }
        #expect(await harness.until(timeout: 30) { drained(harness) })
        // The last change is lost on its way to every device: every card is behind before its pull.
        harness.fleet.setFaults(DeviceFaults(seed: 2026, dropShare: 1))
        try await his.leave(id)
        #expect(await harness.until(timeout: 30) { drained(harness) })
        let lost = phones.flatMap(\.log).filter { $0.message.contains("lost on the way") }.count
        #expect(lost > 0)

        func truth(_ app: CookSuggestApp) async throws -> CookSuggestActivityAttributes.ContentState {
            let key = "cooksuggest:\(id):\(app.device.configuration.userID)"
            guard case .snapshot(let snapshot) = try await app.client.pull(contextKey: key, sinceRev: nil) else {
                throw CookSuggestTestError("no snapshot of \(key)")
            }
            return try JSONDecoder().decode(CookSuggestActivityAttributes.ContentState.self, from: snapshot.state.compactJSON)
        }
        for app in apps {
            let expected = try await truth(app)
            #expect(app.card(id) != expected, "\(app.device.id) is behind before its pull")
        }
        for phone in phones { harness.fleet.foreground(device: phone.id) }
        await harness.fleet.settle()
        for app in apps {
            let expected = try await truth(app)
            #expect(
                app.card(id) == expected,
                "\(app.device.id): \(app.card(id).map { "\($0.rev) \($0.statusLabel)" } ?? "-") vs \(expected.rev) \(expected.statusLabel)")
        }
        // Each viewer's own truth: Dennis left (his card ended), she goes on alone with the proposals.
        #expect(his.card(id)?.ended == true && his.card(id)?.statusLabel == "Abgesagt")
        #expect(hers.card(id)?.state == "proposed" && hers.card(id)?.ended == nil)
    }

    func proposed(_ harness: DeviceHarness, _ id: String) -> Bool {
        (try? harness.app.store.database.read { transaction in
            try transaction.queryOne("SELECT state FROM cook_suggest_sessions WHERE id = $1", [.text(id)])?.string("state")
        }) == "proposed"
    }

    func drained(_ harness: DeviceHarness) -> Bool {
        (try? harness.app.store.outbox.depth(now: Date().addingTimeInterval(3600))).map { $0.due == 0 && $0.leased == 0 } ?? false
    }
}

struct CookSuggestTestError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
