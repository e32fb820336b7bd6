import Foundation
import LivelineHTTP2
import LivelineTestSupport
import Synchronization
import Testing
@testable import LivelineSandbox

/// Injected faults: reproducible from their seed, never recorded as accepted.
@Suite struct SandboxFaultsTests {
    final class Flag: Sendable {
        private let value = Mutex(false)
        var isSet: Bool { value.withLock { $0 } }
        func set() { value.withLock { $0 = true } }
    }

    /// Sends `count` pushes one after another and returns each status (or -1 for no answer).
    func statuses(_ harness: SandboxHarness, count: Int) async throws -> [Int] {
        let client = try harness.client()
        defer { client.close() }
        let jwt = try harness.jwt()
        var statuses: [Int] = []
        for _ in 0..<count { statuses.append(try await harness.push(client, jwt: jwt).status) }
        return statuses
    }

    @Test func sharesAreDeterministicForASeed() async throws {
        let faults = SandboxFaults(seed: 42, internalErrorShare: 0.1, unavailableShare: 0.1, tooManyRequestsShare: 0.1)
        var runs: [[Int]] = []
        for _ in 0..<2 {
            let harness = try SandboxHarness()
            defer { harness.sandbox.stop() }
            harness.sandbox.setFaults(faults)
            let statuses = try await statuses(harness, count: 200)
            #expect(harness.sandbox.acceptedCount == statuses.filter { $0 == 200 }.count, "faulted pushes are not recorded")
            runs.append(statuses)
        }
        #expect(runs[0] == runs[1])
        let counts = Dictionary(grouping: runs[0], by: { $0 }).mapValues(\.count)
        for status in [500, 503, 429] {
            #expect((5...40).contains(counts[status] ?? 0), "about 10 % of 200 are \(status): \(counts)")
        }

        let other = try SandboxHarness()
        defer { other.sandbox.stop() }
        other.sandbox.setFaults(SandboxFaults(seed: 43, internalErrorShare: 0.1, unavailableShare: 0.1, tooManyRequestsShare: 0.1))
        #expect(try await statuses(other, count: 200) != runs[0], "another seed, another sequence")
    }

    @Test func faultReasonsAreApples() async throws {
        let harness = try SandboxHarness()
        defer { harness.sandbox.stop() }
        let client = try harness.client()
        defer { client.close() }
        for (faults, status, reason) in [
            (SandboxFaults(internalErrorShare: 1), 500, "InternalServerError"),
            (SandboxFaults(unavailableShare: 1), 503, "ServiceUnavailable"),
            (SandboxFaults(tooManyRequestsShare: 1), 429, "TooManyRequests"),
        ] {
            harness.sandbox.setFaults(faults)
            let response = try await harness.push(client)
            #expect(response.status == status && response.reason == reason && response.header("apns-id") != nil)
        }
        harness.sandbox.setFaults(.none)
        #expect(try await harness.push(client).status == 200)
        #expect(harness.sandbox.acceptedCount == 1)
    }

    @Test func goAwayAfterNStreamsAnswersShutdownAndLaterStreamsAreNotProcessed() async throws {
        let harness = try SandboxHarness()
        defer { harness.sandbox.stop() }
        harness.sandbox.setFaults(SandboxFaults(goAwayAfterStreams: 3))
        let client = try harness.client()
        defer { client.close() }
        #expect(try await harness.push(client).status == 200)
        #expect(try await harness.push(client).status == 200)
        let third = try await harness.push(client)
        #expect(third.status == 503 && third.reason == "Shutdown")
        // The GOAWAY may be read after the answer before it.
        #expect(await eventually { !client.isUsable })
        do {
            _ = try await harness.push(client)
            Issue.record("a push after GOAWAY was answered")
        } catch let error as HTTP2ClientFailure {
            #expect(error.kind == .notProcessed)
        }
        #expect(harness.sandbox.acceptedCount == 2)

        let next = try harness.client()
        defer { next.close() }
        #expect(try await harness.push(next).status == 200, "a new connection works (and counts again)")
    }

    @Test func goAwayCarriesShutdownAsDebugData() async throws {
        let harness = try SandboxHarness()
        defer { harness.sandbox.stop() }
        harness.sandbox.setFaults(SandboxFaults(goAwayAfterStreams: 1))
        let client = try harness.client()
        defer { client.close() }
        let jwt = try harness.jwt()
        // Several streams at once: the first handled gets 503 Shutdown; the others are refused
        // (not processed) or lost with the connection, and none is recorded.
        let results = await withTaskGroup(of: Result<HTTP2ClientResponse, HTTP2ClientFailure>.self) { group in
            for _ in 0..<5 {
                group.addTask {
                    do { return .success(try await harness.push(client, jwt: jwt)) } catch let error as HTTP2ClientFailure {
                        return .failure(error)
                    } catch { return .failure(HTTP2ClientFailure(kind: .connectFailed, message: "\(error)")) }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let answered = results.compactMap { try? $0.get() }
        #expect(answered.count == 1 && answered.allSatisfy { $0.status == 503 && $0.reason == "Shutdown" })
        let failures = results.compactMap { if case .failure(let error) = $0 { error } else { nil } }
        #expect(failures.count == 4)
        for failure in failures {
            #expect(failure.kind == .notProcessed, "\(failure.message)")
            #expect(failure.goAwayDebugData == Array(#"{"reason":"Shutdown"}"#.utf8))
        }
        #expect(harness.sandbox.acceptedCount == 0)
    }

    @Test func aDroppedConnectionLosesTheStreamInFlight() async throws {
        let harness = try SandboxHarness()
        defer { harness.sandbox.stop() }
        harness.sandbox.setFaults(SandboxFaults(dropConnectionAfterStreams: 2))
        let client = try harness.client()
        defer { client.close() }
        #expect(try await harness.push(client).status == 200)
        do {
            _ = try await harness.push(client)
            Issue.record("a dropped push was answered")
        } catch let error as HTTP2ClientFailure {
            #expect(error.kind == .connectionLost)
        }
        #expect(harness.sandbox.acceptedCount == 1)
    }

    @Test func latencyDelaysEveryAnswer() async throws {
        let harness = try SandboxHarness()
        defer { harness.sandbox.stop() }
        let client = try harness.client()
        defer { client.close() }
        #expect(try await harness.push(client).status == 200)
        harness.sandbox.setFaults(SandboxFaults(latency: .milliseconds(500)))
        let start = Date()
        async let first = harness.push(client)
        async let second = harness.push(client)
        let (a, b) = try await (first, second)
        let answered = Date()
        #expect(a.status == 200 && b.status == 200)
        #expect(answered.timeIntervalSince(start) >= 0.5, "answered after the latency")
        // Answered concurrently, not one after the other: the sandbox had received both before
        // either answer went out (each answer waits 500 ms after its request arrived).
        let received = harness.sandbox.accepted(token: SandboxHarness.token).suffix(2).map(\.receivedAt)
        #expect(received.count == 2)
        if let last = received.max(), let firstIn = received.min() {
            #expect(last.timeIntervalSince(firstIn) < 0.5, "the second arrived while the first was still held")
        }
    }

    @Test func managementLatencyHoldsTheManagementPortOnly() async throws {
        let harness = try SandboxHarness()
        defer { harness.sandbox.stop() }
        let devices = try harness.client()
        defer { devices.close() }
        let management = try harness.client(management: true)
        defer { management.close() }
        let create = HTTP2ClientRequest(
            method: "POST", path: "/1/apps/\(harness.sandbox.bundleID)/channels", headers: [("authorization", "bearer " + (try harness.jwt()))],
            body: Array(#"{"message-storage-policy": 1, "push-type": "LiveActivity"}"#.utf8))
        // A creation held for 30 s: a push meanwhile is answered while it is still unanswered
        // (an order, not a time: a loaded machine may be slow to run the test's tasks).
        harness.sandbox.setFaults(SandboxFaults(managementLatency: .seconds(30)))
        let answered = Flag()
        // Sent on the connection's own loop, not from a task: a loaded parallel run may keep the
        // test's tasks from running for a long time.
        let held = ContinuousClock.now
        management.send(create) { _ in answered.set() }
        #expect(await eventually(timeout: 60) { harness.sandbox.channels().count == 1 }, "the sandbox has handled the creation")
        #expect(try await harness.push(devices).status == 200)
        // Unless the test itself was kept from running for most of the hold (then the creation may
        // rightly have been answered meanwhile), the creation is still unanswered.
        if ContinuousClock.now - held < .seconds(25) {
            #expect(!answered.isSet, "the push was answered while the creation waited")
        }
        // A shorter hold is answered, no earlier than it says.
        harness.sandbox.setFaults(SandboxFaults(managementLatency: .milliseconds(500)))
        let other = try harness.client(management: true)
        defer { other.close() }
        let sent = ContinuousClock.now
        #expect(try await other.send(create).status == 201)
        #expect(ContinuousClock.now - sent >= .milliseconds(500))
    }

    @Test func drawsAreReproducible() {
        let first = (0..<1000).map { FaultDice.draw(seed: 7, index: UInt64($0)) }
        let second = (0..<1000).map { FaultDice.draw(seed: 7, index: UInt64($0)) }
        #expect(first == second)
        #expect(first.allSatisfy { (0..<1).contains($0) })
        let mean = first.reduce(0, +) / 1000
        #expect(abs(mean - 0.5) < 0.05)
    }
}
