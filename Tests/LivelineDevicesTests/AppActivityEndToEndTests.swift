import Foundation
import LivelineDevices
import LivelineModel
import LivelineStore
import Testing

/// `docs/engine.md`, "App-reported activities": simulated iPhones whose apps report their own
/// activities through the real client — one scheduled by the app (iOS 26: pending until its
/// date, then started by the system), one transient (ends when the person leaves the app) — and
/// the server's timeline shows each as it stands.
@Suite struct AppActivityEndToEndTests {
    static let type = "TripLiveActivityAttributes"

    /// The `activity` entries of the context's timeline, as `device: note`.
    static func reported(_ harness: DeviceHarness, _ key: String) -> [String] {
        let timeline = try? harness.admin("GET", "/v1/contexts/\(key)/timeline")
        return (timeline?.json?["entries"] as? [[String: Any]] ?? []).filter { $0["kind"] as? String == "activity" }
            .map { "\($0["target"] ?? ""): \($0["note"] ?? "")" }.sorted()
    }

    @Test func aScheduledActivityIsPendingUntilItsDateThenActiveAndATransientOneEndsWithTheApp() async throws {
        let harness = try DeviceHarness(serverOnClock: true)
        defer { harness.stop() }
        let now = await harness.phone("phone-now")
        let later = await harness.phone("phone-later", os: OSVersion(26, 0))
        try harness.put("app", delay: 0)
        let key = "trip:app"
        let body = try #require(try JSONValue(json: Data(DeviceHarness.trip("app", delay: 0).utf8)).objectValue)
        let (attributes, state) = (try #require(body["attributes"]), try #require(body["contentState"]))

        // The first phone's app shows the trip transiently; the second schedules it in 30 minutes.
        harness.fleet.startLocally(
            device: now.id, attributesType: Self.type, attributes: attributes, contentState: state, channelID: nil, style: .transient)
        #expect(await harness.until(timeout: 30) { Self.reported(harness, key) == ["phone-now: activity active · transient"] })
        let startsAt = Date(timeIntervalSince1970: (harness.clock.now.timeIntervalSince1970 + 1800).rounded(.down))
        harness.fleet.startLocally(
            device: later.id, attributesType: Self.type, attributes: attributes, contentState: state, channelID: nil, start: startsAt)
        let pending = "phone-later: activity pending until \(startsAt.formatted(.iso8601))"
        #expect(await harness.until(timeout: 30) { Self.reported(harness, key).contains(pending) }, "\(Self.reported(harness, key))")
        let waiting = { later.activities.filter { $0.contextKey == key }.map(\.state) }
        #expect(waiting() == [.pending] && later.activity(contextKey: key) == nil, "pending: not on the lock screen")

        // Not yet: a tick before the date changes nothing.
        harness.clock.advance(by: 1799)
        harness.fleet.tick(device: later.id)
        #expect(waiting() == [.pending])

        // The date: the system starts it, its app registers the token and reports it active.
        harness.clock.advance(by: 1)
        harness.fleet.tick(device: later.id)
        #expect(
            await harness.until(timeout: 30) { Self.reported(harness, key).contains("phone-later: activity active") },
            "\(Self.reported(harness, key))")
        #expect(waiting() == [.active] && later.activity(contextKey: key) != nil)
        try harness.put("app", delay: 4)
        #expect(
            await harness.until(timeout: 30) { later.activity(contextKey: key)?.contentState.objectValue?["delay"] == .int(4) },
            "the started card follows the context: \(later.messages())")

        // The person leaves the first phone's app: its transient card ends, and is reported so.
        harness.fleet.leaveApp(device: now.id)
        #expect(await harness.until(timeout: 30) { Self.reported(harness, key).contains("phone-now: activity ended · transient") })
        #expect(now.activity(contextKey: key)?.isVisible != true)
    }
}
