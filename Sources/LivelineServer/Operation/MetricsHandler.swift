import Foundation
import LivelineAPI
import LivelineEngine
import LivelineHTTP
import LivelineModel
import LivelineStore

/// `GET /metrics` in the Prometheus text format (`docs/engine.md`, "Configuration and operation"),
/// behind the admin key: APNs answers to pushes by status and reason, and apart from them to the
/// creation and deletion of broadcast channels, outbox depth and the age of the oldest due row,
/// whether the database's disk is full, the dispatch latency histogram, dead letters, budget
/// pressure, starts and suspect push-to-start tokens.
///
/// Counters count since this process started; the outbox gauges read the database, so they are
/// the same on every instance that shares it.
struct MetricsHandler: Sendable {
    let auth: Authenticator
    let engine: Engine
    let clock: @Sendable () -> Date
    /// The features' families (``FeatureSetup/metrics(_:)``), after the engine's.
    var features: @Sendable () -> [MetricFamily] = { [] }

    func addRoutes(to router: inout Router) {
        router.add(Routes.metrics) { request in
            try auth.requireAdmin(request)
            var headers = HTTPHeaders()
            headers.add("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
            return HTTPResponse(status: 200, headers: headers, body: .bytes(Array(try text().utf8)))
        }
    }

    /// The exposition: the engine's families in a fixed order, then the features' (`docs/engine.md`,
    /// "Configuration and operation").
    func text() throws -> String {
        let metrics = engine.metrics.snapshot
        let depth = try engine.outboxDepth()
        var out = PrometheusText()
        Self.writeAnswers(metrics, to: &out)
        writeOutbox(depth, to: &out)
        Self.writeGivenUpAndLowered(metrics, to: &out)
        try writeStarts(metrics, to: &out)
        Self.writeLatency(metrics, to: &out)
        writeFeatures(to: &out)
        return out.text
    }

    /// Writes the push services' answers: APNs' to pushes and to channel management, and web push
    /// services' (`docs/engine.md`, "Configuration and operation").
    static func writeAnswers(_ metrics: EngineMetrics.Snapshot, to out: inout PrometheusText) {
        out.family(
            "liveline_pushes_total", type: "counter",
            help:
                "APNs answers to the engine's pushes (to device tokens and broadcast channels; not channel management), by APNs environment, "
                + "HTTP status and reason (status 0: no answer).")
        for answer in metrics.pushes.keys.sorted() {
            out.sample(
                "liveline_pushes_total",
                ["environment": answer.environment.rawValue, "status": String(answer.status), "reason": answer.reason],
                metrics.pushes[answer]!)
        }

        out.family(
            "liveline_channel_operations_total", type: "counter",
            help:
                "APNs answers to the engine's channel management: broadcast channels created (201) and deleted (204), by APNs environment, "
                + "operation, HTTP status and reason (status 0: no answer).")
        for answer in metrics.channelOperations.keys.sorted() {
            out.sample(
                "liveline_channel_operations_total",
                [
                    "environment": answer.environment.rawValue, "operation": answer.operation.rawValue, "status": String(answer.status),
                    "reason": answer.reason,
                ],
                metrics.channelOperations[answer]!)
        }

        out.family(
            "liveline_web_pushes_total", type: "counter",
            help: "Push services' answers to the engine's web pushes (notify's browser channel), by HTTP status (0: no answer).")
        for status in metrics.webPushes.keys.sorted() {
            out.sample("liveline_web_pushes_total", ["status": String(status)], metrics.webPushes[status]!)
        }
    }

    /// Writes the outbox gauges, read from the database, and whether its disk is full
    /// (`docs/reliability.md`, "Disk full").
    func writeOutbox(_ depth: OutboxDepth, to out: inout PrometheusText) {
        out.family(
            "liveline_outbox_rows", type: "gauge",
            help: "Outbox rows by state: due (waiting), leased (being sent), dead (never sent, see the timeline).")
        out.sample("liveline_outbox_rows", ["state": "due"], depth.due)
        out.sample("liveline_outbox_rows", ["state": "leased"], depth.leased)
        out.sample("liveline_outbox_rows", ["state": "dead"], depth.dead)

        out.family(
            "liveline_outbox_oldest_due_age_seconds", type: "gauge", help: "How long the oldest due outbox row has waited (0 when none waits).")
        out.sample("liveline_outbox_oldest_due_age_seconds", [:], depth.oldestDueAge ?? 0)

        out.family(
            "liveline_storage_full", type: "gauge",
            help: "1 while the disk holding the database is full: writes answer 503 storageFull and change nothing (docs/reliability.md).")
        out.sample("liveline_storage_full", [:], engine.isStorageFull ? 1 : 0)
    }

    /// Writes what this process gave up on (dead letters) and sent at a lower priority than asked
    /// (`docs/engine.md`, "Budgets and priority").
    static func writeGivenUpAndLowered(_ metrics: EngineMetrics.Snapshot, to out: inout PrometheusText) {
        out.family("liveline_dead_letters_total", type: "counter", help: "Outbox rows and fan-out targets given up on by this process.")
        out.sample("liveline_dead_letters_total", [:], metrics.deadLetters)

        out.family(
            "liveline_budget_limited_pushes_total", type: "counter",
            help: "Material changes sent at priority 5 because the activity's hourly priority-10 budget was used.")
        out.sample("liveline_budget_limited_pushes_total", [:], metrics.budgetLimited)
    }

    /// Writes the push-to-start outcomes and the tokens whose last start went unanswered
    /// (`docs/engine.md`, "Lifecycle").
    func writeStarts(_ metrics: EngineMetrics.Snapshot, to out: inout PrometheusText) throws {
        out.family(
            "liveline_starts_total", type: "counter",
            help:
                "Push-to-start outcomes: sent (APNs accepted), failed, suspect (no update token followed), missed (a scheduled start not sent in time)."
        )
        for outcome in ["sent", "failed", "suspect", "missed"] {
            out.sample("liveline_starts_total", ["outcome": outcome], metrics.starts[outcome] ?? 0)
        }

        out.family("liveline_suspect_start_tokens", type: "gauge", help: "Active push-to-start tokens whose last start went unanswered.")
        out.sample("liveline_suspect_start_tokens", [:], try engine.suspectStartTokens())
    }

    /// Writes the dispatch latency histogram over ``EngineMetrics/latencyBuckets``: each bucket counts
    /// every answer up to its bound, then `+Inf`, `_sum` and `_count` (Prometheus text format,
    /// https://prometheus.io/docs/instrumenting/exposition_formats/).
    static func writeLatency(_ metrics: EngineMetrics.Snapshot, to out: inout PrometheusText) {
        out.family("liveline_dispatch_latency_seconds", type: "histogram", help: "From an outbox row being due to APNs' answers to its pushes.")
        var cumulative = 0
        for (index, bound) in EngineMetrics.latencyBuckets.enumerated() {
            cumulative += metrics.latencyCounts[index]
            out.sample("liveline_dispatch_latency_seconds_bucket", ["le": PrometheusText.number(bound)], cumulative)
        }
        out.sample("liveline_dispatch_latency_seconds_bucket", ["le": "+Inf"], metrics.latencyCount)
        out.sample("liveline_dispatch_latency_seconds_sum", [:], metrics.latencySum)
        out.sample("liveline_dispatch_latency_seconds_count", [:], metrics.latencyCount)
    }

    /// Writes the features' families (``FeatureSetup/metrics(_:)``) as they give them.
    func writeFeatures(to out: inout PrometheusText) {
        for family in features() {
            out.family(family.name, type: family.type, help: family.help)
            for sample in family.samples { out.sample(family.name, sample.labels, sample.value) }
        }
    }
}

/// Writes the Prometheus text exposition format (version 0.0.4).
struct PrometheusText {
    private(set) var text = ""

    mutating func family(_ name: String, type: String, help: String) {
        text += "# HELP \(name) \(help.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\n", with: "\\n"))\n"
        text += "# TYPE \(name) \(type)\n"
    }

    mutating func sample(_ name: String, _ labels: [String: String], _ value: Int) {
        sample(name, labels, rendered: String(value))
    }

    mutating func sample(_ name: String, _ labels: [String: String], _ value: Double) {
        sample(name, labels, rendered: Self.number(value))
    }

    private mutating func sample(_ name: String, _ labels: [String: String], rendered value: String) {
        text += name
        if !labels.isEmpty {
            text += "{" + labels.keys.sorted().map { "\($0)=\"\(Self.escape(labels[$0]!))\"" }.joined(separator: ",") + "}"
        }
        text += " \(value)\n"
    }

    static func number(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value > 0 ? "+Inf" : "-Inf" }
        return value == value.rounded() && abs(value) < 1e15 ? String(Int(value)) : String(value)
    }

    static func escape(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}
