import Foundation
import LivelinePush
import LivelinePushWire
import LivelineSandbox
import LivelineServer
import LivelineTestSupport
import LivelineTransitModel
import Testing

/// Network faults between the server and APNs (`docs/reliability.md`, "Network faults"): the APNs
/// sandbox listens inside a network namespace of the test's own, the server (in the test process's
/// namespace) reaches it over a veth pair whose packets the test's `PacketDelayer` (netfilter's
/// queue; this kernel has no `tc netem`) first makes lossy and slow (20 % loss
/// and 300 ms delay on the way in), then cuts for 30 s (every packet dropped), then heals. Changes keep
/// coming all along. Every change answered 2xx is stored, every phone ends with the last state,
/// no device is started twice, the pushes the partition held up are retried on new connections,
/// and the outbox drains soon after the heal.
@Suite(.serialized) struct APNSNetworkFaultTests {
    static let contexts = 5
    static let phonesPerContext = 2
    static let starters = 4
    static let partition: Duration = .seconds(30)

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    @Test(
        .enabled(if: !TestBackend.isPostgres, "the APNs side does not depend on the database: it runs in the SQLite pass"),
        .enabled(
            if: NetworkNamespace.unavailableReason == nil,
            Comment(rawValue: "skipped: \(NetworkNamespace.unavailableReason ?? "")")),
        .timeLimit(.minutes(3)))
    func pushesSurviveLossDelayAndAPartitionWithNothingLostAndNoSecondStart() async throws {
        let namespace = try NetworkNamespace()
        defer { namespace.remove() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-netfaults-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        // The sandbox listens inside the namespace (its sockets and threads are made there).
        let sandboxFolder = folder.appendingPathComponent("sandbox")
        let address = namespace.innerAddress
        let sandbox = try namespace.inside { try APNSSandbox.start(SandboxConfiguration(folder: sandboxFolder, host: address)) }
        defer { sandbox.stop() }
        let setup = try ContextAPITests.Setup(folder: folder.appendingPathComponent("data"), external: sandbox) { configuration in
            configuration.apns.host = address
            // Never a dead letter here: every change must arrive once the path is back.
            configuration.pushRetry = RetryPolicy(initialDelay: .milliseconds(500), maximumDelay: .seconds(3), maximumAttempts: 1000)
        }
        defer { setup.stop() }

        // Phones: two per context with update tokens, and four with push-to-start tokens.
        var tokens: [String: [String]] = [:]
        for context in 0..<Self.contexts {
            for phone in 0..<Self.phonesPerContext {
                let key = "trip:netfault-\(context)"
                tokens[key, default: []].append(
                    try setup.device(context * Self.phonesPerContext + phone, contextKey: key, type: "TripLiveActivityAttributes"))
            }
        }
        let starters = try (0..<Self.starters).map { try setup.startDevice(100 + $0, type: "TripLiveActivityAttributes") }
        var final: [String: Int] = [:]
        var sent = 0
        var refused: [String] = []
        func put(_ key: String, _ delay: Int) throws {
            let response = try setup.admin("PUT", "/v1/contexts/\(key)", json: ContextAPITests.trip(delay: delay))
            sent += 1
            if response.status == 200 || response.status == 201 {
                final[key] = delay
            } else {
                refused.append("\(response.status) \(response.text.prefix(200))")
            }
        }
        func lastDelay(_ token: String) -> Int? { setup.contentStates(token).last?["delay"] as? Int }
        func allArrived() -> Bool { tokens.allSatisfy { key, tokens in tokens.allSatisfy { lastDelay($0) == final[key] } } }

        // Clean path first: every phone has its context's first state.
        for key in tokens.keys { try put(key, 0) }
        #expect(await eventually(timeout: 30) { allArrived() }, "the first states arrived over the clean path")

        // Lossy and slow: 20 % loss and 300 ms delay on the way to APNs, for 12 s of changes; the starts are
        // asked for meanwhile.
        try namespace.impair(lossPercent: 20, delayMilliseconds: 300)
        let startKey = "trip:netfault-start"
        try put(startKey, 1)
        let devices = (0..<Self.starters).map { "\"phone-\(100 + $0)\"" }.joined(separator: ",")
        let startBody = #"{"deviceIds":[\#(devices)],"alert":{"title":"Trip"}}"#
        let asked = try setup.admin("POST", "/v1/contexts/\(startKey)/start", json: startBody)
        #expect(asked.status == 200, "\(asked.text)")
        var step = 0
        let lossyUntil = ContinuousClock.now + .seconds(12)
        while ContinuousClock.now < lossyUntil {
            step += 1
            try put("trip:netfault-\(step % Self.contexts)", step)
            try await Task.sleep(for: .milliseconds(100))
        }
        let sentLossy = sent

        // Partition: nothing gets through, either way, for 30 s; changes keep coming, and the
        // start is asked for again (it must not go out twice).
        try namespace.partition()
        let partitionedAt = ContinuousClock.now
        let partitionedDate = Date()
        let again = try setup.admin("POST", "/v1/contexts/\(startKey)/start", json: startBody)
        #expect(again.status == 200, "\(again.text)")
        while ContinuousClock.now < partitionedAt + Self.partition {
            step += 1
            try put("trip:netfault-\(step % Self.contexts)", step)
            try await Task.sleep(for: .milliseconds(200))
        }
        let arrivedDuringPartition = allArrived()
        try namespace.heal()
        let healedAt = ContinuousClock.now
        let healedDate = Date()

        // Healed: the outbox drains and every phone has the last state of its context.
        let drained = await eventually(timeout: 90) { allArrived() && ((try? setup.outboxIsEmpty()) ?? false) }
        let drainTime = ContinuousClock.now - healedAt
        let packets = try namespace.packetCounts()
        #expect(drained, "the outbox drained after the heal")
        #expect(!arrivedDuringPartition, "the partition held pushes up (else it tested nothing)")
        #expect(refused.isEmpty, "every change was taken (the database is local): \(refused.prefix(3))")

        // Every change answered 2xx is stored: the pull gives the last one.
        for (key, delay) in final {
            let pulled = try setup.admin("GET", "/v1/contexts/\(key)")
            #expect(
                pulled.status == 200 && (pulled.json?["contentState"] as? [String: Any])?["delay"] as? Int == delay,
                "\(key): \(pulled.text.prefix(200))")
        }
        // Each device started once: one start push APNs accepted per device, whatever was resent.
        let startPushes = starters.map { token in setup.aps(token).filter { $0["event"] as? String == "start" }.count }
        #expect(startPushes == Array(repeating: 1, count: Self.starters), "starts per device: \(startPushes)")
        let startRows = try setup.server.app.store.starts.starts(contextKey: startKey)
        #expect(startRows.count == Self.starters, "one start row per device: \(startRows.count)")

        // Retried: answers the partition withheld (status 0) were counted and sent again; the
        // client reconnected (the pushes after the heal came on other connections).
        let pushes = setup.server.app.engine.metrics.snapshot.pushes
        let unanswered = pushes.filter { $0.key.status == 0 }.values.reduce(0, +)
        let answered = pushes.filter { $0.key.status == 200 }.values.reduce(0, +)
        let accepted = (tokens.values.flatMap { $0 } + starters).flatMap { sandbox.accepted(token: $0) }
        let connections = Set(accepted.map(\.connectionID)).count
        let connectionsAfterHeal = Set(accepted.filter { $0.receivedAt >= healedDate }.map(\.connectionID))
        let connectionsBefore = Set(accepted.filter { $0.receivedAt < healedDate }.map(\.connectionID))
        #expect(unanswered > 0, "pushes held up by the partition were counted unanswered and retried: \(pushes)")
        // The connection the partition cut is given up after 2 × 15 s of silence (the client's
        // `livenessTimeout`), about when the partition ends: pushes after the heal go on a new
        // connection, or on the old one when TCP's retransmission revived it first.
        #expect(!connectionsAfterHeal.isEmpty, "pushes went out after the heal")
        // Duplicates: the same apns-id accepted twice (a resend of a push APNs had taken) and
        // pushes of a context state a phone already had.
        let sameID = accepted.count - Set(accepted.map(\.apnsID)).count
        // A repeated state whose first copy APNs took before the partition began is a push whose
        // answer the partition cut: sent again, at least once (docs/engine.md, "Retries").
        var repeatedStates = 0
        var repeatedCutAnswers = 0
        for token in tokens.values.flatMap({ $0 }) {
            var seen: [Int: Date] = [:]
            for push in sandbox.accepted(token: token) {
                let json = try? JSONSerialization.jsonObject(with: Data(push.payload)) as? [String: Any]
                guard let delay = ((json?["aps"] as? [String: Any])?["content-state"] as? [String: Any])?["delay"] as? Int else { continue }
                if let first = seen[delay] {
                    repeatedStates += 1
                    if first < partitionedDate { repeatedCutAnswers += 1 }
                } else {
                    seen[delay] = push.receivedAt
                }
            }
        }
        #expect(sameID == 0, "no push accepted twice under the same apns-id")

        print(
            """
            APNs network faults: \(sent) changes sent (\(sentLossy) before the partition, the rest during it), every one answered 2xx \
            and stored; \(accepted.count) pushes accepted by APNs (\(answered) answered 200 to the server), \(unanswered) attempts \
            unanswered (status 0) and retried; pushes arrived on \(connections) connections (after the heal on \
            \(connectionsAfterHeal.subtracting(connectionsBefore).count) new, \(connectionsAfterHeal.intersection(connectionsBefore).count) revived); duplicates: \(sameID) same apns-id, \(repeatedStates) repeated content states (\(repeatedCutAnswers) of them first \
            taken before the partition, whose answers it cut), starts per device \(startPushes); packets \(packets); \
            outbox drained and every phone current \(String(format: "%.1f", Self.seconds(drainTime))) s after the heal \
            (partition \(Int(Self.seconds(Self.partition))) s, loss 20 % and delay 300 ms on the way to APNs before it)
            """)
    }
}
