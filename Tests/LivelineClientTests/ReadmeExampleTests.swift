import Foundation
import LivelineClient
import LivelineModel
import LivelineTransitModel
import Testing

// The code of docs/sdk.md, "Using it from an app" (the README's iOS lines are a part of it),
// compiled and run against a real server. Keep them in step: both say this file checks them.

/// docs/sdk.md: register on every launch, reconcile on push and foreground, render with freshness.
func readmeExample(server: URL, userToken: String, deviceToken: String, snapshots: URL) async throws -> String {
    let client = LivelineClient(baseURL: server, bearerToken: userToken, deviceID: "iphone-of-dennis")
    try await client.register(.alert, token: deviceToken)  // on every launch: idempotent
    try await client.setLiveActivities(enabled: true, for: TripLiveActivityAttributes.typeName)

    let store = SharedSnapshotStore(folder: snapshots)  // iOS: SharedSnapshotStore(appGroup: "group.…")
    let trip = client.reconciler(for: TripLiveActivityAttributes.self, contextKey: "trip:42", store: store)
    await trip.pushArrived()  // a push woke the app: pull the truth
    await trip.enteredForeground()  // and on foreground
    guard let snapshot = await trip.snapshot else { return "no trip yet" }
    return "\(snapshot.state.nextStop) in \(Int(snapshot.state.remainingTime / 60)) min, \(await trip.freshness())"
}

@Suite struct ReadmeExampleTests {
    @Test func theReadmeCodeRunsAgainstARealServer() async throws {
        let server = try ClientTestServer()
        defer { server.stop() }
        let snapshots = server.folder.appendingPathComponent("snapshots")
        #expect(try server.admin("PUT", "/v1/contexts/trip:42", json: ClientTestServer.trip(delay: 0, remaining: 300)).status == 201)
        // The trip's activity follows the context (its update token was registered).
        try await server.client(deviceID: "iphone-of-dennis").register(.update, token: ClientTests.token, contextKey: "trip:42")
        let text = try await readmeExample(
            server: server.baseURL, userToken: server.bearer, deviceToken: String(repeating: "ab", count: 32), snapshots: snapshots
        )
        #expect(text == "Messe in 5 min, live")
        #expect(try SharedSnapshotStore(folder: snapshots).read(TripLiveActivityAttributes.ContentState.self, contextKey: "trip:42")?.rev == 1)
    }
}
