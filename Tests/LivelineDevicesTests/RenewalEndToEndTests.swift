import Foundation
import LivelineDevices
import LivelineModel
import LivelineStore
import Testing

/// `docs/engine.md`, "Renewal": a trip type renewed before its 8-hour limit, on a server and
/// phones that share one manual clock (hours pass in milliseconds); every push goes through the
/// APNs sandbox over HTTP/2 and TLS to the simulated iPhones, which end a card 8 hours after its
/// start by themselves.
@Suite struct RenewalEndToEndTests {
    static let type = "TripLiveActivityAttributes"

    /// A server that renews trips, two phones of the user (a budget that never binds) showing
    /// `trip:<id>`.
    static func ride(_ id: String) async throws -> (DeviceHarness, [SimulatedDevice]) {
        let harness = try DeviceHarness(serverOnClock: true) {
            $0.renewingTypes = [type]
            $0.quietChangeDebounce = 0
        }
        var rules = DeviceRules()
        rules.priorityBudget = 1000
        let phones = [await harness.phone("phone-a", rules: rules), await harness.phone("phone-b", rules: rules)]
        try harness.put(id, delay: 0)
        #expect(try harness.start(id) == ["queued", "queued"])
        #expect(await harness.until(timeout: 30) { phones.allSatisfy { $0.activity(contextKey: "trip:\(id)")?.updateToken != nil } })
        return (harness, phones)
    }

    /// The cards of `key` on the phone's lock screen.
    static func cards(_ phone: SimulatedDevice, _ key: String) -> [SimulatedActivity] {
        phone.activities.filter { $0.contextKey == key && $0.isVisible }
    }

    /// Ten minutes pass, the trip changes (its delay is `step`), and everything sent is delivered.
    static func step(
        _ harness: DeviceHarness, _ phones: [SimulatedDevice], id: String, step: Int, until: (SimulatedDevice) -> Bool
    ) async throws
        -> Bool
    {
        harness.clock.advance(by: 600)
        for phone in phones { harness.fleet.tick(device: phone.id) }
        try harness.put(id, delay: step)
        return await harness.until(timeout: 30) { harness.outboxIsEmpty && phones.allSatisfy(until) }
    }

    @Test func aRideOfNineHoursShowsOneCardPerPhoneThroughoutAndTheSuccessorCarriesOnTheRevisions() async throws {
        let (harness, phones) = try await Self.ride("long")
        defer { harness.stop() }
        let key = "trip:long"
        let first = phones.map { Self.cards($0, key).first?.id }
        for step in 1...54 {
            let arrived = try await Self.step(harness, phones, id: "long", step: step) { phone in
                let shown = Self.cards(phone, key)
                return shown.count == 1 && shown[0].state != .ended && shown[0].contentState.objectValue?["delay"] == .int(step)
            }
            #expect(arrived, "step \(step) (\(step * 10) min): \(phones.map { Self.cards($0, key).map { ($0.id, $0.state, $0.contentState) } })")
            for phone in phones {
                #expect(Self.cards(phone, key).map(\.state) == [.active], "\(phone.id) at \(step * 10) min shows one running card")
            }
            if !arrived { break }
        }
        for (index, phone) in phones.enumerated() {
            #expect(Self.cards(phone, key).first?.id != first[index], "\(phone.id) shows the successor")
            #expect(!phone.logged("ended by the system: 8 hours since its start"), "\(phone.messages())")
        }
        // The successor took the changes after the renewal (the trip's delay is the last step's),
        // and each successor start carried the revision after the predecessor's last.
        #expect(phones.allSatisfy { Self.cards($0, key).first?.contentState.objectValue?["delay"] == .int(54) })
        let revisions = try harness.app.store.contexts.revisions(key: key, limit: 100)
        #expect(revisions.contains { $0.note?.contains("renewal: successors start before the 8-hour limit") == true })
        let renewals = try harness.app.store.renewals.renewals(contextKey: key)
        #expect(renewals.map(\.status) == [.renewed, .renewed], "\(renewals)")
        let starts = try harness.app.store.starts.starts(contextKey: key)
        #expect(starts.map(\.status) == [.sent, .sent] && starts.allSatisfy { $0.updateTokenAt != nil }, "\(starts)")
    }

    @Test func aRefusedSuccessorStartEndsTheOldCardAtTheLimitWithTheReasonInTheTimeline() async throws {
        let (harness, phones) = try await Self.ride("gone")
        defer { harness.stop() }
        let key = "trip:gone"
        let (renewed, refused) = (phones[0], phones[1])
        // APNs answers 410 to phone-b's push-to-start token from now on.
        harness.sandbox.markUnregistered(token: try #require(refused.startTokens[Self.type]), at: harness.clock.now)
        let oldCard = try #require(Self.cards(refused, key).first?.id)
        for step in 1...54 {
            let arrived = try await Self.step(harness, phones, id: "gone", step: step) { phone in
                let shown = Self.cards(phone, key)
                // Before the limit (7 h 50 min) the old card runs on; at it, it ends (and is
                // dismissed after the trip's 30 s, the next step).
                guard phone === refused, step >= 47 else { return shown.count == 1 && shown[0].contentState.objectValue?["delay"] == .int(step) }
                return shown.allSatisfy { $0.state == .ended }
            }
            #expect(arrived, "step \(step): \(phones.map { Self.cards($0, key).map { ($0.id, $0.state) } })")
            #expect(Self.cards(renewed, key).count == 1 && Self.cards(refused, key).count <= 1, "never two cards on a phone")
            if !arrived { break }
        }
        #expect(Self.cards(refused, key).isEmpty, "the old card ended at the limit and left")
        #expect(refused.activities.allSatisfy { $0.id == oldCard }, "no second card on the refused phone: \(refused.messages())")
        #expect(refused.logged("ended; stays until"), "the engine's end, with its final state: \(refused.messages())")
        #expect(!refused.logged("ended by the system: 8 hours since its start"))
        #expect(Self.cards(renewed, key).first?.state == .active)
        let timeline = try harness.admin("GET", "/v1/contexts/\(key)/timeline?limit=500")
        let entries = timeline.json?["entries"] as? [[String: Any]] ?? []
        let notes = entries.compactMap { $0["note"] as? String }
        #expect(
            notes.contains { $0.contains("end at the 8-hour limit on device phone-b: the successor's start was refused (410 Unregistered") },
            "the end's delivery says why: \(notes)")
        let renewals = entries.filter { $0["kind"] as? String == "renewal" }.map {
            "\($0["target"] as? String ?? "?") \($0["note"] as? String ?? "?"): \($0["reason"] as? String ?? "")"
        }
        #expect(renewals.contains("phone-a renewal renewed: "), "\(renewals)")
        #expect(
            renewals.contains { $0.hasPrefix("phone-b renewal ended: end at the 8-hour limit") && $0.contains("refused (410 Unregistered)") },
            "\(renewals)")
    }
}
