import Foundation
import LivelineSandbox
import LivelineServer
import LivelineStore
import LivelineTestSupport
import LivelineTesting
import Testing

/// `docs/engine.md`, "Renewal": a renewal planned is durable and planned once — a server that
/// stops after planning and before sending starts the successor once after its restart — and a
/// renewing type the server does not know stops the start.
@Suite struct RenewalTests {
    static let type = "TripLiveActivityAttributes"

    /// A server that sends nothing (its dispatcher off), a phone showing `trip:night` with a
    /// push-to-start token, and the clock moved to when the renewal is planned (planned by one
    /// sweep): the server, the update and start tokens, and the context's first deadline.
    static func planned(data: URL, sandbox: APNSSandbox, clock: ManualClock) throws -> (ContextAPITests.Setup, String, String, Date) {
        let first = try ContextAPITests.Setup(folder: data, external: sandbox, clock: clock) { configuration in
            configuration.renewingTypes = [Self.type]
            configuration.dispatcherEnabled = false
        }
        let update = try first.device(0, contextKey: "trip:night", type: Self.type)
        let start = try first.startDevice(0, type: Self.type)
        #expect(try first.admin("PUT", "/v1/contexts/trip:night", json: ContextAPITests.trip(delay: 1)).status == 201)
        let deadline = try #require(try first.server.app.store.contexts.context(key: "trip:night")?.deadlineAt)
        clock.advance(by: 7 * 3600 + 35 * 60)
        first.server.app.engine.sweepLifecycle()
        return (first, update, start, deadline)
    }

    @Test func aRenewalPlannedBeforeARestartStartsTheSuccessorOnceAfterIt() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-renewal-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sandbox = try APNSSandbox.start(SandboxConfiguration(folder: folder.appendingPathComponent("sandbox")))
        defer { sandbox.stop() }
        let clock = ManualClock()
        let data = folder.appendingPathComponent("data")
        // The first server plans and sends nothing (as if it died right after planning).
        let (first, update, start, deadline) = try Self.planned(data: data, sandbox: sandbox, clock: clock)
        clock.advance(by: 1)
        first.server.app.engine.sweepLifecycle()
        #expect(try first.server.app.store.renewals.renewals(contextKey: "trip:night").map(\.status) == [.starting])
        first.stop(keepData: true)

        let second = try ContextAPITests.Setup(folder: data, external: sandbox, clock: clock) { $0.renewingTypes = [Self.type] }
        defer { second.stop() }
        clock.advance(by: 1)
        second.server.app.engine.sweepLifecycle()
        #expect(await eventually { second.aps(start).count == 1 && second.aps(update).last?["event"] as? String == "end" })
        #expect(try await eventually { try second.dispatcherIsIdle() })
        second.server.app.engine.sweepLifecycle()
        #expect(try await eventually { try second.dispatcherIsIdle() })
        #expect(second.aps(start).count == 1, "one successor start, across the restart and the sweeps after it")
        #expect(second.aps(start).first?["event"] as? String == "start")
        let end = try #require(second.aps(update).last)
        #expect((end["dismissal-date"] as? Int).map { $0 <= Int(clock.now.timeIntervalSince1970) } == true, "the predecessor leaves at once")
        let renewed = try #require(try second.server.app.store.contexts.context(key: "trip:night"))
        #expect(renewed.state == .active && renewed.deadlineAt > deadline, "the successor's 8 hours: \(renewed.deadlineAt)")
        #expect(try second.server.app.store.renewals.renewals(contextKey: "trip:night").map(\.status) == [.renewed])
    }

    /// The successor's app registered its update token while no verdict of APNs on its start
    /// was recorded (as after a dispatcher that died between sending and recording): the start
    /// counts as answered, and it is never sent again — one successor card.
    @Test func theSuccessorsUpdateTokenAnswersItsStartSoItIsNotSentAgain() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-renewal-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let sandbox = try APNSSandbox.start(SandboxConfiguration(folder: folder.appendingPathComponent("sandbox")))
        defer { sandbox.stop() }
        let clock = ManualClock()
        let data = folder.appendingPathComponent("data")
        let (first, update, start, deadline) = try Self.planned(data: data, sandbox: sandbox, clock: clock)
        #expect(try first.server.app.store.renewals.renewals(contextKey: "trip:night").map(\.status) == [.starting])
        // The old card's own token again is no answer; the successor's new one is.
        _ = try first.device(0, contextKey: "trip:night", type: Self.type)
        #expect(try first.server.app.store.renewals.renewals(contextKey: "trip:night").map(\.status) == [.starting])
        let successor = String(repeating: "5c", count: 32)
        sandbox.registerDevice(token: successor)
        let registered = try first.server.request(
            "POST", "/api/apns/register", token: first.bearer,
            json: #"{"kind":"la-update","token":"\#(successor)","device_id":"phone-0","context_key":"trip:night","attributes_type":"\#(Self.type)"}"#)
        #expect(registered.status == 200, "\(registered.text)")
        #expect(try first.server.app.store.renewals.renewals(contextKey: "trip:night").map(\.status) == [.renewed])
        first.stop(keepData: true)

        let second = try ContextAPITests.Setup(folder: data, external: sandbox, clock: clock) { $0.renewingTypes = [Self.type] }
        defer { second.stop() }
        clock.advance(by: 1)
        second.server.app.engine.sweepLifecycle()
        #expect(await eventually { second.aps(update).last?["event"] as? String == "end" }, "the predecessor ends")
        #expect(try await eventually { try second.dispatcherIsIdle() })
        #expect(second.aps(start).isEmpty, "the answered successor start is not sent (again)")
        let renewed = try #require(try second.server.app.store.contexts.context(key: "trip:night"))
        #expect(renewed.state == .active && renewed.deadlineAt > deadline)
    }

    @Test func aRenewingTypeTheServerDoesNotKnowStopsTheStart() throws {
        #expect {
            try TestServer { $0.renewingTypes = ["NoSuchActivityAttributes"] }
        } throws: { error in
            "\(error)".contains("LIVELINE_RENEW_TYPES names NoSuchActivityAttributes, which is no contract this server knows")
        }
    }
}
