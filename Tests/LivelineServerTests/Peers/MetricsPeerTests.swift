import Foundation
import LivelineTestSupport
import LivelineTransitModel
import Testing

/// `/metrics` read by an independent parser: prometheus_client (PyPI, in the test virtualenv).
@Suite struct MetricsPeerTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    @Test func prometheusClientParsesEveryFamilyWithItsTypeAndValues() async throws {
        let python = Self.root.appendingPathComponent(".venv/bin/python")
        try #require(FileManager.default.isExecutableFile(atPath: python.path), "run scripts/test-venv.sh (creates .venv with prometheus-client)")
        let setup = try ContextAPITests.Setup()
        defer { setup.stop() }
        let token = try setup.device(0, contextKey: "trip:metrics", type: "TripLiveActivityAttributes")
        #expect(try setup.admin("PUT", "/v1/contexts/trip:metrics", json: ContextAPITests.trip(delay: 1)).status == 201)
        #expect(await eventually { setup.sandbox.accepted(token: token).count == 1 })
        #expect(try await eventually { try setup.server.app.store.deliveries.attempts(contextKey: "trip:metrics").count == 1 })

        let metrics = try setup.admin("GET", "/metrics")
        #expect(metrics.status == 200)
        let file = setup.server.folder.appendingPathComponent("metrics.txt")
        try Data(metrics.body).write(to: file)
        let peer = try ChildProcess.run(
            python.path, [Self.root.appendingPathComponent("Tests/LivelineServerTests/Peers/prometheus_peer.py").path, file.path]
        )
        let data = peer.output
        let errorText = String(decoding: peer.errors, as: UTF8.self)
        #expect(peer.termination == .exited(0), "\(errorText)")
        let families = try #require(try JSONSerialization.jsonObject(with: data) as? [String: [String: Any]], "\(errorText)")

        // prometheus_client names counter families without the `_total` suffix.
        #expect(families["liveline_pushes"]?["type"] as? String == "counter")
        #expect(families["liveline_outbox_rows"]?["type"] as? String == "gauge")
        #expect(families["liveline_outbox_oldest_due_age_seconds"]?["type"] as? String == "gauge")
        #expect(families["liveline_dead_letters"]?["type"] as? String == "counter")
        #expect(families["liveline_dispatch_latency_seconds"]?["type"] as? String == "histogram")

        let pushes = try #require(families["liveline_pushes"]?["samples"] as? [[String: Any]])
        #expect(pushes.count == 1)
        #expect(pushes.first?["labels"] as? [String: String] == ["environment": "sandbox", "status": "200", "reason": ""])
        #expect(pushes.first?["value"] as? Double == 1)
        let histogram = try #require(families["liveline_dispatch_latency_seconds"]?["samples"] as? [[String: Any]])
        let buckets = histogram.filter { $0["name"] as? String == "liveline_dispatch_latency_seconds_bucket" }.compactMap { $0["value"] as? Double }
        #expect(buckets.count == 14 && buckets == buckets.sorted() && buckets.last == 1)
        #expect(histogram.contains { $0["name"] as? String == "liveline_dispatch_latency_seconds_count" && $0["value"] as? Double == 1 })
    }
}
