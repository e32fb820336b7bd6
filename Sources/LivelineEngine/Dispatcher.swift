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
///
/// It runs on a thread of its own, not on the cooperative pool: a batch is rendered, every push
/// of it sent at once, the thread waits for APNs' answers, and records them in one transaction.
/// So ``stop(timeout:)`` can wait for it from anywhere, a task included.
public final class Dispatcher: Sendable {
    let store: Store
    let sender: any PushSender
    let renderer: SyncRenderer
    let configuration: EngineConfiguration
    public let metrics: EngineMetrics

    private struct Running {
        var stopping = false
        var finished: DispatchSemaphore?
    }
    private let running = Mutex(Running())

    init(store: Store, sender: any PushSender, renderer: SyncRenderer, configuration: EngineConfiguration, metrics: EngineMetrics) {
        self.store = store
        self.sender = sender
        self.renderer = renderer
        self.configuration = configuration
        self.metrics = metrics
    }

    /// Starts sending on a thread of its own: woken by every enqueue, else every `idlePoll`.
    public func start() {
        let finished = DispatchSemaphore(value: 0)
        let started = running.withLock { running -> Bool in
            guard running.finished == nil else { return false }
            running = Running(stopping: false, finished: finished)
            return true
        }
        guard started else { return }
        let thread = Thread { [self] in
            while !isStopping {
                let seen = store.outbox.enqueued.value
                if runOnce() == 0 && !isStopping {
                    store.outbox.enqueued.waitBlocking(past: seen, timeout: configuration.idlePoll)
                }
            }
            finished.signal()
        }
        thread.name = "liveline-dispatcher"
        thread.start()
    }

    /// Stops sending: the batch in flight finishes (its answers are recorded), then the thread
    /// ends. Returns false when that took longer than `timeout` (rows still leased come back to
    /// any dispatcher when their lease ends). Safe to call from any thread or task.
    @discardableResult
    public func stop(timeout: Duration = .seconds(10)) -> Bool {
        guard let finished = running.withLock({ running -> DispatchSemaphore? in
            running.stopping = true
            defer { running.finished = nil }
            return running.finished
        }) else { return true }
        store.outbox.enqueued.bump()  // wakes the thread if it sleeps
        let nanoseconds = timeout.components.seconds * 1_000_000_000 + timeout.components.attoseconds / 1_000_000_000
        return finished.wait(timeout: .now() + .nanoseconds(Int(nanoseconds))) == .success
    }

    private var isStopping: Bool { running.withLock { $0.stopping } }

    /// Claims one batch, sends it and records the answers; returns how many rows it handled.
    /// Blocks the calling thread until APNs answered every push of the batch.
    @discardableResult
    public func runOnce() -> Int {
        let rows: [OutboxRow]
        do {
            rows = try store.outbox.claim(
                owner: configuration.dispatcherID, now: configuration.clock(), lease: configuration.lease, limit: configuration.batchSize
            )
        } catch {
            return 0
        }
        guard !rows.isEmpty else { return 0 }
        let now = configuration.clock()
        var sending: [(row: OutboxRow, rendered: RenderedSync, answers: Answers)] = []
        let group = DispatchGroup()
        for row in rows {
            guard let rendered = prepare(row, now: now) else { continue }
            let answers = Answers()
            send(rendered, into: answers, group: group)
            sending.append((row, rendered, answers))
        }
        group.wait()
        for (row, rendered, answers) in sending {
            record(row, rendered: rendered, outcomes: answers.outcomes)
        }
        return rows.count
    }

    /// Runs batches until nothing is due (for tests and tools).
    public func drain(maxBatches: Int = 10_000) {
        for _ in 0..<maxBatches where runOnce() > 0 {}
    }

    // MARK: One row

    struct Outcome: Sendable {
        let target: OutboxTarget
        let token: PushTokenRecord?
        let result: APNSResult
    }

    /// The answers to one row's pushes, filled from the client's I/O thread.
    final class Answers: Sendable {
        private let collected = Mutex<[Outcome]>([])
        func add(_ outcome: Outcome) { collected.withLock { $0.append(outcome) } }
        var outcomes: [Outcome] { collected.withLock { $0 } }
    }

    /// Renders and checks the row's push; nil (and the row finished) when there is nothing to send.
    private func prepare(_ row: OutboxRow, now: Date) -> RenderedSync? {
        guard row.kind == .sync else {
            finish(row, deadReason: "message rows are not sent by this version of the engine", now: now)
            return nil
        }
        let rendered: RenderedSync?
        do {
            rendered = try renderer.render(row, now: now)
        } catch {
            finish(row, deadReason: "rendering failed: \(error)", now: now)
            return nil
        }
        guard let rendered else {
            finish(row, now: now)  // the context is gone: nothing to send
            return nil
        }
        let destination: PushDestination = rendered.tokens.isEmpty && rendered.channelID != nil ? .broadcast : .device
        let report = PayloadCheck(destination: destination, now: now).check(json: Data(rendered.payload), typeName: rendered.contractName)
        guard report.isAccepted else {
            let problems = report.errors.prefix(3).map { "\($0.keyPath) [\($0.code.rawValue)] \($0.message)" }.joined(separator: "; ")
            finish(row, deadReason: "payload check refused rev \(rendered.rev): \(problems)", now: now)
            return nil
        }
        if rendered.tokens.isEmpty && rendered.channelID == nil {
            finish(row, now: now)  // nobody to send to yet; a later change or registration brings it
            return nil
        }
        return rendered
    }

    /// Sends the rendered push to its channel and every token at once.
    private func send(_ rendered: RenderedSync, into answers: Answers, group: DispatchGroup) {
        if let channel = rendered.channelID {
            group.enter()
            sender.broadcast(APNSBroadcast(bundleID: configuration.bundleID, channelID: channel, payload: rendered.payload)) { result in
                answers.add(Outcome(target: .channel(channel), token: nil, result: result))
                group.leave()
            }
        }
        for token in rendered.tokens {
            group.enter()
            let notification = APNSNotification.liveActivity(
                deviceToken: token.token, bundleID: configuration.bundleID, payload: rendered.payload, priority: rendered.priority
            )
            sender.send(notification) { result in
                answers.add(Outcome(target: .token(token.id), token: token, result: result))
                group.leave()
            }
        }
    }

    /// Records the answers to one row's pushes and follows them.
    private func record(_ row: OutboxRow, rendered: RenderedSync, outcomes: [Outcome]) {
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
                if rendered.carriesHints, outcomes.contains(where: { $0.result.outcome == .delivered }) {
                    try store.contexts.clearHints(key: rendered.contextKey, sentRev: rendered.rev, in: transaction)
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
            // Sends so far: this row's, and for a one-target row the fan-out send before it.
            let sends = row.attempts + 1 + (row.target != nil ? 1 : 0)
            if sends >= configuration.retryPolicy.maximumAttempts {
                finish(row, deadReason: "gave up after \(sends) attempts: \(outcomes.first?.result.summary ?? "no answer")", now: answeredAt)
            } else {
                let delay = configuration.retryPolicy.delay(beforeRetry: sends)
                _ = try? store.outbox.retry(
                    id: row.id, owner: configuration.dispatcherID, at: answeredAt.addingTimeInterval(Self.seconds(delay)),
                    error: outcomes.first?.result.summary ?? "no answer", now: answeredAt
                )
            }
        } else {
            finish(row, deadReason: deadReason, now: answeredAt)
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
            reason: outcome.result.reason?.rawValue ?? outcome.result.transportError, priority: rendered.priority.rawValue,
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
