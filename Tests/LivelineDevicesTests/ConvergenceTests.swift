import Foundation
import LivelineDevices
import LivelineModel
import Testing

/// Push = wake-up, pull = truth: with a fifth of the pushes lost and the rest reordered, every
/// device's card equals the server's truth after its next pull.
@Suite struct ConvergenceTests {
    @Test func everyCardEqualsTheServersTruthAfterItsNextPull() async throws {
        let harness = try DeviceHarness { $0.quietChangeDebounce = 0 }
        defer { harness.stop() }
        var frequent = DeviceRules()
        frequent.frequentPriorityBudget = 1000
        var phones: [SimulatedDevice] = []
        for index in 0..<3 { phones.append(await harness.phone("phone-\(index)", frequent: true, rules: frequent)) }
        let trips = ["c1", "c2"]
        for trip in trips {
            try harness.put(trip, delay: 0)
            #expect(Set(try harness.start(trip)) == ["queued"])
        }
        #expect(
            await harness.until { phones.allSatisfy { phone in trips.allSatisfy { phone.activity(contextKey: "trip:\($0)")?.updateToken != nil } } })

        // From now on a fifth of the pushes is lost and the rest arrive shuffled in threes; the apps
        // do not pull when woken, so the cards show what the pushes alone made of it.
        harness.fleet.setFaults(DeviceFaults(seed: 2026, dropShare: 0.2, reorderWindow: 3))
        harness.fleet.setPullsOnWake(false)
        var random = SplitMix64(seed: 7)
        let phases = ["beforeDeparture", "inProgress"]
        for _ in 0..<200 {
            let trip = trips[Int(random.next() % 2)]
            try harness.put(
                trip, delay: Int(random.next() % 15), phase: phases[Int(random.next() % 2)], remaining: 60 + Int(random.next() % 900)
            )
        }
        // Let the dispatcher send everything; some pushes were lost, the rest came out of order.
        #expect(
            await harness.until(timeout: 30) {
                (try? harness.app.store.outbox.depth(now: Date().addingTimeInterval(3600))).map { $0.due == 0 && $0.leased == 0 } ?? false
            })
        await harness.fleet.settle()
        let lost = phones.flatMap(\.log).filter { $0.message.contains("lost on the way") }.count
        #expect(lost > 0, "the fault dropped pushes")
        // The last change of each trip is lost on its way to every phone.
        harness.fleet.setFaults(DeviceFaults(seed: 2026, dropShare: 1))
        for trip in trips { try harness.put(trip, delay: 42, phase: "inProgress", remaining: 120) }
        #expect(
            await harness.until(timeout: 30) {
                (try? harness.app.store.outbox.depth(now: Date().addingTimeInterval(3600))).map { $0.due == 0 && $0.leased == 0 } ?? false
            })
        await harness.fleet.settle()

        var truths: [String: JSONValue] = [:]
        for trip in trips {
            let truth = try harness.admin("GET", "/v1/contexts/trip:\(trip)")
            truths[trip] = try JSONValue(json: JSONSerialization.data(withJSONObject: try #require(truth.json?["contentState"])))
        }
        let wrongBeforePull = phones.flatMap { phone in trips.filter { phone.activity(contextKey: "trip:\($0)")?.contentState != truths[$0] } }
        #expect(wrongBeforePull.count == phones.count * trips.count, "every card is behind the truth before the pull: \(wrongBeforePull.count)")

        for phone in phones { harness.fleet.foreground(device: phone.id) }
        #expect(await harness.fleet.settle(), "every app's pull was answered")
        for trip in trips {
            for phone in phones {
                let key = "trip:\(trip)"
                #expect(
                    phone.activity(contextKey: key)?.contentState == truths[trip],
                    "\(phone.id) \(trip): \(phone.log.filter { $0.contextKey == key || $0.contextKey == nil }.suffix(6).map(\.message))")
            }
        }
    }
}
