import Foundation
import LivelineClient
import LivelineDevices
import LivelineModel
import LivelineSandbox
import LivelineShoppingModel
import LivelineTestSupport
import Synchronization
import Testing

/// Broadcast to many devices (`docs/reliability.md`, "Broadcast to many devices"): a household's
/// phones follow one week's shopping channel through a trip while a fifth of the pushes is lost
/// on the way and the rest arrive out of order; every card equals the server's truth after its
/// next pull. Prints the time from each change to its push accepted by APNs and to each card
/// showing it (p50/p99). 31 phones by default; `LIVELINE_BROADCAST_DEVICES` sets another number
/// (`scripts/bench-broadcast.sh` runs 1,000), `LIVELINE_BROADCAST_PACE_MS` the time between
/// changes (default: the number of phones in ms, at least 150); with
/// `LIVELINE_BROADCAST_PULLS_ON_WAKE=0` the apps do not pull when a push wakes them (only when
/// they come to the foreground at the end), to see the broadcast path alone.
@Suite struct BroadcastToManyDevicesTests {
    static let week = "2026-01-05"
    static let type = ShoppingActivityAttributes.typeName

    static var deviceCount: Int {
        ProcessInfo.processInfo.environment["LIVELINE_BROADCAST_DEVICES"].flatMap(Int.init).map { max(1, $0) } ?? 31
    }

    /// When each change was made and when it reached APNs and each card.
    final class Ledger: Sendable {
        struct State {
            /// Each change: its revision (once answered), when it was asked for, and how long the
            /// server took to answer it.
            var changes: [(rev: Int?, at: ContinuousClock.Instant, took: Duration?)] = []
            /// Broadcasts APNs accepted on the channel: the revision they carry, and when.
            var accepted: [(rev: Int, at: ContinuousClock.Instant)] = []
            /// Per device: the first change it has not shown yet.
            var next: [Int]
            /// From a change to a card showing it (its revision or a later one), per device and change.
            var converged: [Duration] = []
        }
        let state: Mutex<State>
        /// Whether the watcher still looks at the cards.
        let watching = Mutex(true)
        init(devices: Int) { state = Mutex(State(next: Array(repeating: 0, count: devices))) }

        func changing() -> Int {
            state.withLock { state in
                state.changes.append((nil, .now, nil))
                return state.changes.count - 1
            }
        }
        func changed(_ index: Int, rev: Int) {
            state.withLock { state in
                state.changes[index].rev = rev
                state.changes[index].took = .now - state.changes[index].at
            }
        }
        func accepted(rev: Int) { state.withLock { $0.accepted.append((rev, .now)) } }

        /// Notes, for each device, the changes its card shows now (`revs[i]`: device i's card).
        func observe(_ revs: [Int?]) {
            let now = ContinuousClock.now
            state.withLock { state in
                for (device, rev) in revs.enumerated() {
                    guard let rev else { continue }
                    while state.next[device] < state.changes.count, let wanted = state.changes[state.next[device]].rev, rev >= wanted {
                        state.converged.append(now - state.changes[state.next[device]].at)
                        state.next[device] += 1
                    }
                }
            }
        }

        /// Whether every device shows every change answered so far.
        var allShown: Bool { state.withLock { state in state.next.allSatisfy { $0 == state.changes.count } } }

        /// From each change to the first broadcast accepted with its revision or a later one (nil
        /// for a change none carried yet).
        var acceptedLatencies: [Duration?] {
            state.withLock { state in
                state.changes.map { change in
                    guard let rev = change.rev else { return nil }
                    return state.accepted.filter { $0.rev >= rev && $0.at >= change.at }.map(\.at).min().map { $0 - change.at }
                }
            }
        }
    }

    /// `p` (0…1) of `values`, nearest rank.
    static func percentile(_ values: [Duration], _ p: Double) -> Duration {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .zero }
        return sorted[min(sorted.count - 1, Int((Double(sorted.count - 1) * p).rounded()))]
    }

    static func milliseconds(_ duration: Duration) -> String {
        String(format: "%.0f ms", Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15)
    }

    @Test func everyPhoneOnTheWeeksChannelEqualsTheTruthAfterItsNextPull() async throws {
        let count = Self.deviceCount
        // Timeouts grow with the fleet: each phone's app calls the server after each push.
        let patience = TimeInterval(30 + count / 10)
        let harness = try DeviceHarness { $0.quietChangeDebounce = 0 }
        defer { harness.stop() }
        let key = "shopping:\(harness.householdID):\(Self.week)"
        let dennis = harness.client(deviceID: "phone-0")

        // The week's list, before the trip.
        var items: [Int] = []
        for index in 0..<18 { items.append(try await dennis.addShoppingItem(week: Self.week, label: "Artikel \(index + 1)").item.id) }

        // The phones: the household's, each app with the shopping card only, launched (their
        // tokens registered) all at once. A budget that never binds: this is about loss and order.
        var rules = DeviceRules()
        rules.priorityBudget = 100_000
        rules.frequentPriorityBudget = 100_000
        let phones = (0..<count).map { index in
            SimulatedDevice(
                DeviceConfiguration(
                    id: "phone-\(index)", userID: harness.userID.rawValue, householdID: harness.householdID.rawValue, frequentUpdatesAllowed: true,
                    activityTypes: [Self.type]),
                rules: rules, registry: .builtIn, clock: harness.clock.function)
        }
        let launched = ContinuousClock.now
        for phone in phones { harness.fleet.add(phone, client: harness.client(deviceID: phone.id)) }
        #expect(await harness.fleet.settle(timeout: patience * 2), "every app registered its tokens")
        let launchTime = ContinuousClock.now - launched

        // Dennis starts shopping: the week gets its broadcast channel; each phone's app starts the
        // card itself, following the channel (as the starter's own app does), so the updates reach
        // the cards by the broadcast alone.
        let session = try await dennis.startShopping(week: Self.week)
        let channelID = try #require(session.channelId, "the week has a channel: \(session.channelFallback ?? "")")
        let first = try #require(try await dennis.shoppingWeek(Self.week).state)
        let firstState = try JSONValue(json: JSONEncoder().encode(first))
        for phone in phones {
            harness.fleet.startLocally(
                device: phone.id, attributesType: Self.type, attributes: ["week": .string(Self.week)], contentState: firstState,
                channelID: channelID)
        }
        #expect(await harness.fleet.settle(timeout: patience))
        #expect(phones.allSatisfy { $0.activity(contextKey: key)?.channelID == channelID }, "every card follows the week's channel")

        let ledger = Ledger(devices: count)
        let observer = harness.sandbox.observeAccepted { push in
            guard push.channelID == channelID,
                let json = try? JSONSerialization.jsonObject(with: Data(push.payload)) as? [String: Any],
                let rev = ((json["aps"] as? [String: Any])?["content-state"] as? [String: Any])?["rev"] as? Int
            else { return }
            ledger.accepted(rev: rev)
        }
        defer { harness.sandbox.stopObserving(observer) }
        let watcher = Task.detached {
            while ledger.watching.withLock({ $0 }) {
                ledger.observe(phones.map { $0.activity(contextKey: key)?.rev })
                try? await Task.sleep(for: .milliseconds(count > 100 ? 20 : 5))
            }
        }

        // The trip: items checked off one by one, now and then one added, paced so the phones'
        // apps keep up (each pulls and reports a receipt after each push it gets). From now on a
        // fifth of the pushes is lost and the rest arrive shuffled in threes.
        harness.fleet.setFaults(DeviceFaults(seed: 2026, dropShare: 0.2, reorderWindow: 3))
        let pullsOnWake = ProcessInfo.processInfo.environment["LIVELINE_BROADCAST_PULLS_ON_WAKE"] != "0"
        harness.fleet.setPullsOnWake(pullsOnWake)
        let pace = Duration.milliseconds(
            ProcessInfo.processInfo.environment["LIVELINE_BROADCAST_PACE_MS"].flatMap(Int.init) ?? max(150, count))
        let tripStarted = ContinuousClock.now
        var open = items
        for step in 0..<24 {
            let index = ledger.changing()
            let rev: Int
            if step % 4 == 3 {
                rev = try await dennis.addShoppingItem(week: Self.week, label: "Noch \(step)").rev
            } else {
                rev = try await dennis.updateShoppingItem(id: open.removeFirst(), UpdateShoppingItemRequest(done: true)).rev
            }
            ledger.changed(index, rev: rev)
            try await Task.sleep(for: pace)
        }
        let tripTime = ContinuousClock.now - tripStarted

        // Everything the server meant to send is answered, and handed to the phones (what was
        // held back comes out now, shuffled); then each phone's app comes to the foreground and
        // pulls: every card equals the truth.
        #expect(await harness.until(timeout: patience) { harness.outboxIsEmpty })
        let truthRev = try await dennis.shoppingWeek(Self.week).rev
        #expect(await harness.until(timeout: patience) { ledger.state.withLock { $0.accepted.contains { $0.rev >= truthRev } } })
        #expect(await harness.fleet.settle(timeout: patience))
        let truth = try #require(try await dennis.shoppingWeek(Self.week).state)
        func shown(_ phone: SimulatedDevice) -> ShoppingActivityAttributes.ContentState? {
            phone.activity(contextKey: key).flatMap {
                try? JSONDecoder().decode(ShoppingActivityAttributes.ContentState.self, from: $0.contentState.compactJSON)
            }
        }
        let behind = phones.filter { shown($0) != truth }.count
        for phone in phones { harness.fleet.foreground(device: phone.id) }
        #expect(await harness.fleet.settle(timeout: patience))
        #expect(await harness.until(timeout: patience) { ledger.allShown })
        ledger.watching.withLock { $0 = false }
        await watcher.value
        ledger.observe(phones.map { $0.activity(contextKey: key)?.rev })

        let wrong = phones.filter { shown($0) != truth }.map(\.id)
        #expect(wrong.isEmpty, "\(wrong.count) of \(count) cards differ from the truth after their pull: \(wrong.prefix(5))")
        let logs = phones.flatMap(\.log)
        let lost = logs.filter { $0.message.contains("lost on the way") }.count
        let reordered = logs.filter { $0.message.contains("delivered out of order") }.count
        #expect(lost > 0, "the fault lost pushes")
        #expect(reordered > 0, "the fault reordered pushes")
        let accepted = ledger.acceptedLatencies
        #expect(accepted.allSatisfy { $0 != nil }, "every change reached APNs in a broadcast")
        let toAPNs = accepted.compactMap { $0 }
        let converged = ledger.state.withLock { $0.converged }
        #expect(converged.count == count * 24, "every card showed every change")
        let broadcasts = ledger.state.withLock { $0.accepted.count }
        let answered = ledger.state.withLock { $0.changes.compactMap(\.took) }
        print(
            "broadcast to \(count) devices (\(TestBackend.isPostgres ? "PostgreSQL" : "SQLite")): launched in \(launchTime); 24 changes "
                + "\(Self.milliseconds(pace)) apart in \(tripTime)\(pullsOnWake ? "" : " (apps not pulling when woken)"), \(broadcasts) broadcasts accepted; \(lost) deliveries lost, \(reordered) groups delivered out of order, "
                + "\(behind) cards behind the truth before their pull; change answered by the server p50 "
                + "\(Self.milliseconds(Self.percentile(answered, 0.5))) p99 \(Self.milliseconds(Self.percentile(answered, 0.99))); change → push accepted p50 \(Self.milliseconds(Self.percentile(toAPNs, 0.5))) "
                + "p99 \(Self.milliseconds(Self.percentile(toAPNs, 0.99))); change → card converged p50 "
                + "\(Self.milliseconds(Self.percentile(converged, 0.5))) p99 \(Self.milliseconds(Self.percentile(converged, 0.99))) "
                + "(\(converged.count) device-changes)")
    }
}
