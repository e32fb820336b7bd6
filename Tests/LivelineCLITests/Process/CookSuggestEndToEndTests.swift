import Foundation
import LivelineApps
import LivelineClient
import LivelineCookSuggestModel
import LivelineCrypto
import LivelineDemo
import LivelineDevices
import LivelineModel
import LivelineSandbox
import LivelineShoppingModel
import LivelineStore
import LivelineTestSupport
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Meal planning for two end to end (`docs/features/cook-suggest.md`): `liveline serve` as a child
/// process (killed with SIGKILL while the kitchen thinks, started again on the same data), the
/// test's APNs sandbox with its web push service, three simulated iPhones whose apps act through
/// the SDK, real HTTP throughout.
@Suite struct CookSuggestEndToEndTests {
    static let type = CookSuggestActivityAttributes.typeName

    final class Scene {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-cook-\(UUID().uuidString)")
        var data: URL { folder.appendingPathComponent("data") }
        let sandbox: APNSSandbox
        let fleet: DeviceFleet
        let dennis: UserRecord
        let jaqueline: UserRecord
        let dennisBearer = SecureRandom.token(prefix: "ll_")
        let herBearer = SecureRandom.token(prefix: "ll_")
        let session = URLSession(configuration: .ephemeral)
        var server: ServeProcess?
        var port = 0

        init() throws {
            sandbox = try APNSSandbox.start(SandboxConfiguration(folder: folder.appendingPathComponent("sandbox")))
            fleet = DeviceFleet(sandbox: sandbox)
            let store = try Store.openSQLite(folder: folder.appendingPathComponent("data"))
            dennis = try store.accounts.createUser(
                household: "Fisch", name: "Dennis", avatarTint: "azure", emoji: "🐟", locale: "de", tokenHash: SHA256.hex(dennisBearer), now: Date())
            jaqueline = try store.accounts.createUser(
                household: "Fisch", name: "Jaqueline", avatarTint: "coral", emoji: "🐠", locale: "de", tokenHash: SHA256.hex(herBearer), now: Date())
        }

        /// `liveline serve` on the data folder (on the port of the one before, if there was one),
        /// pushing to the test's sandbox; proposals after `thinkMilliseconds`.
        func serve(thinkMilliseconds: Int) throws {
            let environment = CrashRecoveryTests.environment(sandbox).merging([
                "LIVELINE_COOKSUGGEST_THINK_MS": String(thinkMilliseconds), "LIVELINE_PUSH_MIN_INTERVAL_MS": "0",
                "LIVELINE_WEBPUSH_SUBJECT": "mailto:ops@liveline.test", "LIVELINE_WEBPUSH_ALLOW_INSECURE": "1",
            ]) { $1 }
            let next = try ServeProcess(data: data, environment: environment, port: port)
            port = next.port
            server = next
        }

        func client(_ bearer: String, device: String) -> LivelineClient {
            LivelineClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!, bearerToken: bearer, deviceID: device, session: session, timeout: 20)
        }

        /// A phone of `user`, its app launched (tokens registered).
        func phone(_ id: String, of user: UserRecord, bearer: String, os: OSVersion = OSVersion(18, 0)) async throws -> CookSuggestApp {
            let device = SimulatedDevice(
                DeviceConfiguration(id: id, userID: user.id.rawValue, householdID: user.householdID.rawValue, environment: .sandbox, os: os),
                registry: .builtIn)
            let client = client(bearer, device: id)
            fleet.add(device, client: client)
            let tokens = 1 + device.startTokens.count
            let launched = await eventually(timeout: 60) {
                await self.fleet.settle(timeout: 1)
                return device.log.filter { $0.message.hasPrefix("app registered its") }.count >= tokens
            }
            #expect(launched, "\(id) registered its tokens")
            return CookSuggestApp(device: device, client: client, fleet: fleet)
        }

        /// Waits until every app's card of `id` satisfies `condition`.
        func cards(
            _ apps: [CookSuggestApp], _ id: String, timeout: TimeInterval = 20,
            _ condition: @escaping (CookSuggestActivityAttributes.ContentState) -> Bool
        )
            async -> Bool
        {
            await eventually(timeout: timeout) {
                await self.fleet.settle(timeout: 1)
                return apps.allSatisfy { app in app.card(id).map(condition) ?? false }
            }
        }

        func stop() {
            server?.kill(SIGTERM)
            server = nil
            fleet.detach()
            sandbox.stop()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    @Test func dennisAndJaquelinePlanDinnerFromTheInvitationToTheDishAcrossAServerKilledWhileTheKitchenThinks() async throws {
        let scene = try Scene()
        defer { scene.stop() }
        // The first life thinks for ten minutes: it is killed long before.
        try scene.serve(thinkMilliseconds: 600_000)
        let his = try await scene.phone("dennis-phone", of: scene.dennis, bearer: scene.dennisBearer)
        let herPhone = try await scene.phone("jaqueline-phone", of: scene.jaqueline, bearer: scene.herBearer)
        let herPad = try await scene.phone("jaqueline-ipad", of: scene.jaqueline, bearer: scene.herBearer, os: OSVersion(17, 2))
        let browser = try scene.sandbox.webPush.subscribe()
        let registered = try TestHTTPConnection(port: scene.port).request(
            "POST", "/api/apns/register", headers: ["Authorization": "Bearer \(scene.herBearer)"],
            json: #"{"kind":"web-push","device_id":"laptop","token":\#(browser.subscription.canonicalJSON)}"#)
        #expect(registered.status == 200, "\(registered.text)")
        let all = [his, herPhone, herPad]

        // Dennis starts planning with Jaqueline (twice: a double submit is the same session).
        let session = try await his.start(date: "2026-06-18", partner: scene.jaqueline.id.rawValue)
        let id = session.id
        let twice = try await his.client.createCookSuggestSession(date: "2026-06-18", partner: scene.jaqueline.id.rawValue)
        #expect(session.created == true && twice.created == false && twice.id == id)

        // Her two devices get the card by push-to-start, her phone the alert with the link, her
        // browser the web push, her inbox the record.
        #expect(await scene.cards(all, id) { $0.state == "answering" }, "every device shows the card")
        #expect(his.card(id)?.statusLabel == "Jaqueline füllt aus …" && herPhone.card(id)?.statusLabel == "Dennis füllt aus …")
        #expect(
            herPad.device.activity(contextKey: "cooksuggest:\(id):\(scene.jaqueline.id)")?.attributes.objectValue?["partnerName"] == .string("Dennis")
        )
        #expect(await eventually { herPhone.device.notifications.contains { $0.link == "/cook-suggest/\(id)" } })
        #expect(herPhone.device.notifications.last?.title == "Plan mit Dennis das Essen")
        #expect(await eventually { scene.sandbox.webPush.pushes(subscriptionID: browser.id).first?.plaintext != nil })
        let plaintext = try #require(scene.sandbox.webPush.pushes(subscriptionID: browser.id).first?.plaintext)
        let shown = try #require(try JSONSerialization.jsonObject(with: Data(plaintext)) as? [String: Any])
        #expect(shown["title"] as? String == "Plan mit Dennis das Essen" && shown["link"] as? String == "/cook-suggest/\(id)")
        let inbox = try await herPhone.client.notifications()
        #expect(inbox.map(\.dedupeKey) == ["cs-invite-\(id)"] && inbox.first?.resolved == false)

        // She taps the invitation; both answer and get ready: every card shows the kitchen thinking.
        let opened = try #require(try await herPhone.openInvitation())
        #expect(opened.id == id && opened.participants?.first { $0.role == "partner" }?.joined == true)
        try await his.answer(id, CookSuggestAnswers(maxMinutes: 40, diet: ["vegetarian"], moods: ["quick"]))
        try await herPhone.answer(id, CookSuggestAnswers(diet: ["vegetarian"], useUp: ["Zucchini"]))
        try await herPhone.ready(id)
        #expect(await scene.cards([his], id) { $0.statusLabel == "Jaqueline ist bereit" && $0.partnerReady })
        let generating = try await his.ready(id)
        #expect(generating.state == "generating")
        #expect(await scene.cards(all, id) { $0.statusLabel == "Die Küche denkt nach …" }, "\(all.map { $0.card(id)?.statusLabel ?? "-" })")

        // Killed while the kitchen thinks; the next life (no think time) resumes the job.
        let first = try #require(scene.server)
        first.kill(SIGKILL)
        #expect(first.process.termination == .signalled(SIGKILL))
        try scene.serve(thinkMilliseconds: 0)
        #expect(
            await scene.cards(all, id, timeout: 30) { $0.state == "proposed" && $0.proposalCount == 3 },
            "\(all.map { $0.card(id)?.statusLabel ?? "-" })")
        #expect(his.card(id)?.statusLabel == "3 Vorschläge sind da")

        // She picks; his card asks; both confirm the same: decided, every card ends with the dish.
        let proposed = try await his.client.cookSuggestSession(id)
        let dish = try #require(proposed.proposals?.first)
        try await herPhone.pick(id, dish.id)
        #expect(await scene.cards([his], id) { $0.statusLabel == "Vorschlag: \(dish.title)?" && $0.partnerPickTitle == dish.title })
        try await herPhone.confirm(id, dish.id)
        let decided = try await his.confirm(id, dish.id)
        #expect(decided.state == "decided", "\(decided.state ?? "-")")
        #expect(await scene.cards(all, id) { $0.state == "decided" && $0.ended == true && $0.decidedTitle == dish.title })
        #expect(his.card(id)?.statusLabel == "Heute: \(dish.title)")
        // Through finalizing: his card's timeline has every step and where it led.
        let timeline = try TestHTTPConnection(port: scene.port).request(
            "GET", "/v1/contexts/cooksuggest:\(id):\(scene.dennis.id)/timeline",
            headers: ["Authorization": "Bearer \(CrashRecoveryTests.adminKey)"])
        let notes = (timeline.json?["entries"] as? [[String: Any]] ?? []).compactMap { $0["note"] as? String }
        #expect(notes.contains { $0.hasSuffix(": finalizing") } && notes.contains { $0.hasSuffix(": decided") }, "\(notes)")
        for app in all {
            let activity = try #require(app.device.activities.first { $0.contextKey == "cooksuggest:\(id):\(app.device.configuration.userID)" })
            let dismissal = try #require(activity.dismissAt, "\(app.device.id) has a dismissal date")
            #expect(abs(dismissal.timeIntervalSinceNow - 120) < 60, "dismissed about 2 minutes after the end: \(dismissal)")
        }

        // The missing ingredients are on that week's list (and its card), the invitation is resolved.
        let week = try await his.client.shoppingWeek("2026-06-15")
        #expect(Set(week.items?.map(\.label) ?? []) == Set(decided.decided?.ingredients.map(\.name) ?? ["-"]))
        #expect(week.state?.open == decided.decided?.ingredients.count)
        let resolved = try await herPhone.client.notifications()
        #expect(resolved.first?.resolved == true)

        // Across the double create, the kill and the restart: one card per device.
        for app in all {
            let cards = app.device.activities.filter { $0.contextKey.hasPrefix("cooksuggest:\(id):") }
            #expect(cards.count == 1, "\(app.device.id): \(cards.count) cards")
        }
    }
}
