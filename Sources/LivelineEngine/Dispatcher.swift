import Foundation
import LivelineModel
import LivelinePush
import LivelineStore
import Synchronization

/// Sends what the outbox holds (`engine.md`, "The transactional outbox and the dispatcher"):
/// claims due rows with a lease (several dispatchers never send one row at the same moment),
/// renders each context's push at send time, checks it against the contract, fans it out to the
/// context's broadcast channel and every `la-update` token registered with its key, records every
/// attempt, and follows APNs' answer: dead tokens are marked invalid (410 only when APNs'
/// timestamp is later than the registration), retryable failures come back as one-target rows
/// with backoff, permanent ones become dead letters with their reason. Delivery is at least once.
public final class Dispatcher: Sendable {
    let store: Store
    let sender: any PushSender
    let renderer: SyncRenderer
    let configuration: EngineConfiguration
    public let metrics: EngineMetrics
    private let loop = Mutex<Task<Void, Never>?>(nil)

    init(store: Store, sender: any PushSender, renderer: SyncRenderer, configuration: EngineConfiguration, metrics: EngineMetrics) {
        self.store = store
        self.sender = sender
        self.renderer = renderer
        self.configuration = configuration
        self.metrics = metrics
    }

    /// Starts sending in the background: woken by every enqueue, else every `idlePoll`.
    public func start() {
        loop.withLock { task in
            guard task == nil else { return }
            task = Task.detached { [self] in
                while !Task.isCancelled {
                    let seen = store.outbox.enqueued.value
                    if await runOnce() == 0 {
                        _ = await store.outbox.enqueued.wait(past: seen, timeout: configuration.idlePoll)
                    }
                }
            }
        }
    }

    /// Stops sending (rows in flight finish; leased rows not finished come back after their lease).
    public func stop() async {
        let task = loop.withLock { task -> Task<Void, Never>? in defer { task = nil }; return task }
        task?.cancel()
        await task?.value
    }

    /// Claims one batch and sends it; returns how many rows it handled.
    @discardableResult
    public func runOnce() async -> Int {
        let rows: [OutboxRow]
        do {
            rows = try store.outbox.claim(
                owner: configuration.dispatcherID, now: configuration.clock(), lease: configuration.lease, limit: configuration.batchSize
            )
        } catch {
            return 0
        }
        await withTaskGroup(of: Void.self) { group in
            for row in rows { group.addTask { await self.process(row) } }
        }
        return rows.count
    }

    /// Sends batches until nothing is due (for tests and tools).
    public func drain(maxBatches: Int = 10_000) async {
        for _ in 0..<maxBatches where await runOnce() > 0 {}
    }

    // MARK: One row

    struct Outcome: Sendable {
        let target: OutboxTarget
        let token: PushTokenRecord?
        let result: APNSResult
    }

    func process(_ row: OutboxRow) async {
        let now = configuration.clock()
        guard row.kind == .sync else {
            finish(row, deadReason: "message rows are not sent by this version of the engine", now: now)
            return
        }
        let rendered: RenderedSync?
        do {
            rendered = try renderer.render(row, now: now)
        } catch {
            finish(row, deadReason: "rendering failed: \(error)", now: now)
            return
        }
        guard let rendered else {
            finish(row, now: now)  // the context is gone: nothing to send
            return
        }
        let destination: PushDestination = rendered.tokens.isEmpty && rendered.channelID != nil ? .broadcast : .device
        let report = PayloadCheck(destination: destination, now: now).check(json: Data(rendered.payload), typeName: rendered.contractName)
        guard report.isAccepted else {
            let problems = report.errors.prefix(3).map { "\($0.keyPath) [\($0.code.rawValue)] \($0.message)" }.joined(separator: "; ")
            finish(row, deadReason: "payload check refused rev \(rendered.rev): \(problems)", now: now)
            return
        }

        let outcomes = await send(rendered)
        let answeredAt = configuration.clock()
        metrics.dispatchLatency(max(0, answeredAt.timeIntervalSince(row.dueAt)))
        var retryThisRow = false
        var deadReason: String?
        do {
            try store.write { transaction in
                for outcome in outcomes {
                    metrics.push(status: outcome.result.status, reason: outcome.result.reason?.rawValue)
                    try store.deliveries.record(attempt(outcome, rendered: rendered, row: row, at: answeredAt), in: transaction)
                    switch outcome.result.outcome {
                    case .delivered, .tokenDead:
                        break
                    case .retry, .rotateToken:
                        if row.target != nil {
                            retryThisRow = true
                        } else {
                            let delay = configuration.retryPolicy.delay(beforeRetry: 1)
                            try store.outbox.enqueueSync(
                                contextKey: rendered.contextKey, target: outcome.target, now: answeredAt,
                                dueAt: answeredAt.addingTimeInterval(Self.seconds(delay)), in: transaction
                            )
                        }
                    case .permanent:
                        let reason = "APNs answered \(outcome.result.summary) for rev \(rendered.rev); not retried"
                        if row.target != nil {
                            deadReason = reason
                        } else {
                            metrics.deadLetter()
                            try store.outbox.recordDeadTarget(
                                contextKey: rendered.contextKey, target: outcome.target, reason: reason, now: answeredAt, in: transaction
                            )
                        }
                    }
                }
            }
        } catch {
            retryThisRow = true
        }
        for outcome in outcomes {
            guard case .tokenDead(let since) = outcome.result.outcome, let token = outcome.token else { continue }
            // 410: only when APNs learnt it after the app last registered the token (engine.md).
            _ = try? store.tokens.markInvalid(
                id: token.id, reason: outcome.result.reason?.rawValue ?? "status \(outcome.result.status)", now: answeredAt,
                registeredBefore: since
            )
        }
        if retryThisRow {
            let attempts = row.attempts + 1
            if attempts >= configuration.retryPolicy.maximumAttempts {
                finish(row, deadReason: "gave up after \(attempts) attempts: \(outcomes.first?.result.summary ?? "no answer")", now: answeredAt)
            } else {
                let delay = configuration.retryPolicy.delay(beforeRetry: attempts)
                _ = try? store.outbox.retry(
                    id: row.id, owner: configuration.dispatcherID, at: answeredAt.addingTimeInterval(Self.seconds(delay)),
                    error: outcomes.first?.result.summary ?? "no answer", now: answeredAt
                )
            }
        } else {
            finish(row, deadReason: deadReason, now: answeredAt)
        }
    }

    /// Sends the rendered push to its channel and every token at once.
    private func send(_ rendered: RenderedSync) async -> [Outcome] {
        await withTaskGroup(of: Outcome.self) { group in
            if let channel = rendered.channelID {
                group.addTask {
                    let result = await self.sender.broadcast(APNSBroadcast(bundleID: self.configuration.bundleID, channelID: channel, payload: rendered.payload))
                    return Outcome(target: .channel(channel), token: nil, result: result)
                }
            }
            for token in rendered.tokens {
                group.addTask {
                    let result = await self.sender.send(.liveActivity(
                        deviceToken: token.token, bundleID: self.configuration.bundleID, payload: rendered.payload
                    ))
                    return Outcome(target: .token(token.id), token: token, result: result)
                }
            }
            var outcomes: [Outcome] = []
            for await outcome in group { outcomes.append(outcome) }
            return outcomes
        }
    }

    private func attempt(_ outcome: Outcome, rendered: RenderedSync, row: OutboxRow, at date: Date) -> DeliveryAttempt {
        let (kind, target): (DeliveryTargetKind, String) = switch outcome.target {
        case .token(let id): (.token, String(id))
        case .channel(let id): (.channel, id)
        }
        let latency = outcome.result.latency.components
        return DeliveryAttempt(
            id: nil, outboxID: row.id, contextKey: rendered.contextKey, rev: rendered.rev, targetKind: kind, target: target,
            apnsID: outcome.result.apnsID ?? outcome.result.requestID, status: outcome.result.status,
            reason: outcome.result.reason?.rawValue ?? outcome.result.transportError, priority: APNSPriority.immediate.rawValue,
            latencyMilliseconds: Double(latency.seconds) * 1000 + Double(latency.attoseconds) / 1e15, attemptedAt: date,
            note: "\(rendered.event) rev \(rendered.rev)"
        )
    }

    private func finish(_ row: OutboxRow, deadReason: String? = nil, now: Date) {
        if let deadReason {
            metrics.deadLetter()
            _ = try? store.outbox.deadLetter(id: row.id, owner: configuration.dispatcherID, reason: deadReason, now: now)
        } else {
            _ = try? store.outbox.complete(id: row.id, owner: configuration.dispatcherID, now: now)
        }
    }

    static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
