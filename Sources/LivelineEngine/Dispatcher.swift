import Foundation
import LivelineModel
import LivelinePush
import LivelineStore
import Synchronization

/// Sends what the outbox holds (`engine.md`, "The transactional outbox and the dispatcher"):
/// claims due rows with a lease (several dispatchers never send one row at the same moment),
/// renders each context's push at send time, checks it against the contract, fans it out to the
/// context's broadcast channel and every `la-update` token registered with its key at the
/// priority the budget allows, sends message rows (starts, alerts, channel deletions) as they were
/// rendered, records every attempt, and follows APNs' answer: dead tokens are marked invalid (410
/// only when APNs' timestamp is later than the registration), retryable failures come back with
/// backoff, permanent ones become dead letters with their reason. Delivery is at least once.
///
/// It runs on a thread of its own, not on the cooperative pool: a batch is rendered, every push
/// of it sent at once, the thread waits for APNs' answers, and records them. So
/// ``stop(timeout:)`` can wait for it from anywhere, a task included. Between batches it runs the
/// engine's periodic work (deadlines, unanswered starts).
public final class Dispatcher: Sendable {
    let store: Store
    let sender: any PushSender
    let renderer: SyncRenderer
    let configuration: EngineConfiguration
    public let metrics: EngineMetrics
    let periodic: @Sendable () -> Void

    private struct Running {
        var stopping = false
        /// The running thread's end: signalled when it left its loop, and again by every wait,
        /// so a stop can be waited for more than once. Nil before the first start.
        var finished: DispatchSemaphore?
        /// The running thread's number (``Dispatcher/stop(timeout:)`` cannot wait for itself).
        var thread: ObjectIdentifier?
    }
    private let running = Mutex(Running())

    init(
        store: Store, sender: any PushSender, renderer: SyncRenderer, configuration: EngineConfiguration, metrics: EngineMetrics,
        periodic: @escaping @Sendable () -> Void = {}
    ) {
        self.store = store
        self.sender = sender
        self.renderer = renderer
        self.configuration = configuration
        self.metrics = metrics
        self.periodic = periodic
    }

    /// Starts sending on a thread of its own: woken by every enqueue, else every `idlePoll`.
    public func start() {
        let finished = DispatchSemaphore(value: 0)
        let started = running.withLock { running -> Bool in
            // Started again only once the previous thread has ended.
            if let previous = running.finished {
                guard previous.wait(timeout: .now()) == .success else { return false }
                previous.signal()
            }
            running = Running(stopping: false, finished: finished)
            return true
        }
        guard started else { return }
        // The thread holds the dispatcher only for one round at a time: once it signals that it
        // finished, nothing it holds can be released later (a release that runs the store's
        // deinit while the process exits corrupts the heap).
        let thread = Thread { [weak self] in
            while let dispatcher = self, !dispatcher.isStopping { dispatcher.round() }
            finished.signal()
        }
        thread.name = "liveline-dispatcher"
        running.withLock { $0.thread = ObjectIdentifier(thread) }
        thread.start()
    }

    /// Stops sending: the batch in flight finishes (its answers are recorded), then the thread
    /// ends. Returns false when that took longer than `timeout` (rows still leased come back to
    /// any dispatcher when their lease ends); calling it again waits again. Safe to call from any
    /// thread or task; from the dispatcher's own thread (a periodic task) it asks the thread to
    /// stop and returns false at once, since a thread cannot wait for its own end.
    @discardableResult
    public func stop(timeout: Duration = .seconds(10)) -> Bool {
        guard let (finished, thread) = running.withLock({ running -> (DispatchSemaphore, ObjectIdentifier?)? in
            running.stopping = true
            return running.finished.map { ($0, running.thread) }
        }) else { return true }
        if let thread, thread == ObjectIdentifier(Thread.current) { return false }
        store.outbox.enqueued.bump()  // wakes the thread if it sleeps
        guard finished.wait(timeout: DispatchTime.after(timeout)) == .success else { return false }
        finished.signal()
        return true
    }

    private var isStopping: Bool { running.withLock { $0.stopping } }

    /// The periodic work, one batch, and a wait for the next enqueue when there was nothing to send.
    private func round() {
        periodic()
        let seen = store.outbox.enqueued.value
        if runOnce() == 0 && !isStopping {
            store.outbox.enqueued.waitBlocking(past: seen, timeout: configuration.idlePoll)
        }
    }

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
        var sending: [(prepared: PreparedRow, answers: Answers)] = []
        let group = DispatchGroup()
        for row in rows {
            guard let prepared = prepare(row, now: now) else { continue }
            let answers = Answers(count: prepared.sends.count)
            for (index, send) in prepared.sends.enumerated() { perform(send, index: index, into: answers, group: group) }
            sending.append((prepared, answers))
        }
        // A request APNs never answers must not stop all sending: after `answerTimeout` it counts
        // as unanswered (retried with backoff; a late answer is ignored).
        let timedOut = group.wait(timeout: .now() + answerTimeout) == .timedOut
        for (prepared, answers) in sending {
            let outcomes = prepared.sends.indices.map { index in
                answers.outcome(index) ?? Outcome(
                    send: prepared.sends[index],
                    result: APNSResult(status: 0, transportError: "no answer within \(Int(answerTimeout)) s", outcome: .retry(newConnection: true))
                )
            }
            record(prepared, outcomes: outcomes)
        }
        _ = timedOut
        return rows.count
    }

    /// How long a batch waits for APNs' answers: well inside the rows' lease.
    var answerTimeout: TimeInterval { max(1, min(60, configuration.lease * 0.8)) }

    /// Runs batches until nothing is due (for tests and tools).
    public func drain(maxBatches: Int = 10_000) {
        for _ in 0..<maxBatches where runOnce() > 0 {}
    }

    // MARK: Preparing

    /// One request to APNs and what it is for.
    struct PreparedSend: Sendable {
        enum Request: Sendable {
            case device(APNSNotification)
            case broadcast(APNSBroadcast)
            case deleteChannel(String)
        }

        let target: OutboxTarget
        let token: PushTokenRecord?
        let request: Request
        let priority: Int
        let note: String
        var budgetLimited = false
    }

    /// A claimed row with the requests it makes.
    struct PreparedRow: Sendable {
        let row: OutboxRow
        let rev: Int?
        let sends: [PreparedSend]
        let sync: RenderedSync?
        let message: OutboxMessage?
    }

    struct Outcome: Sendable {
        let send: PreparedSend
        let result: APNSResult
    }

    /// The answers to one row's requests, filled from the client's I/O thread; read once the
    /// batch stopped waiting (later answers are not looked at).
    final class Answers: Sendable {
        private let collected: Mutex<[Outcome?]>
        init(count: Int) { collected = Mutex(Array(repeating: nil, count: count)) }
        func set(_ index: Int, _ outcome: Outcome) { collected.withLock { $0[index] = outcome } }
        func outcome(_ index: Int) -> Outcome? { collected.withLock { $0[index] } }
    }

    /// What `row` sends; nil (and the row finished or postponed) when it sends nothing now.
    private func prepare(_ row: OutboxRow, now: Date) -> PreparedRow? {
        switch row.kind {
        case .sync: return prepareSync(row, now: now)
        case .message: return prepareMessage(row, now: now)
        }
    }

    private func prepareSync(_ row: OutboxRow, now: Date) -> PreparedRow? {
        let outcome: RenderOutcome
        do {
            outcome = try renderer.render(row, now: now)
        } catch let error as StoreError where [.busy, .io].contains(error.code) {
            // The database is busy or failing for now: try again later, like an unanswered push.
            let delay = configuration.retryPolicy.delay(beforeRetry: row.attempts + 1)
            _ = try? store.outbox.retry(
                id: row.id, owner: configuration.dispatcherID, at: now.addingTimeInterval(Self.seconds(delay)), error: "rendering: \(error)", now: now
            )
            return nil
        } catch {
            finish(row, deadReason: "rendering failed: \(error)", now: now)
            return nil
        }
        let rendered: RenderedSync
        switch outcome {
        case .nothing:
            finish(row, now: now)  // the context is gone: nothing to send
            return nil
        case .postpone(let until, let reason):
            _ = try? store.outbox.postpone(id: row.id, owner: configuration.dispatcherID, until: until, reason: reason, now: now)
            return nil
        case .send(let sync):
            rendered = sync
        }
        let broadcastOnly = rendered.pushes.allSatisfy { $0.token == nil }
        let report = PayloadCheck(destination: broadcastOnly && !rendered.pushes.isEmpty ? .broadcast : .device, now: now)
            .check(json: Data(rendered.payload), typeName: rendered.contractName)
        guard report.isAccepted else {
            let problems = report.errors.prefix(3).map { "\($0.keyPath) [\($0.code.rawValue)] \($0.message)" }.joined(separator: "; ")
            finish(row, deadReason: "payload check refused rev \(rendered.rev): \(problems)", now: now)
            return nil
        }
        if rendered.pushes.isEmpty {
            // Nobody to send to yet; a later change or registration brings it. The end still retires the channel.
            record(PreparedRow(row: row, rev: rendered.rev, sends: [], sync: rendered, message: nil), outcomes: [])
            return nil
        }
        let sends = rendered.pushes.map { push -> PreparedSend in
            let note = "\(rendered.event) rev \(rendered.rev) · p\(push.priority.rawValue): \(push.why)"
            switch push.target {
            case .channel(let channelID):
                return PreparedSend(
                    target: push.target, token: nil,
                    request: .broadcast(APNSBroadcast(bundleID: configuration.bundleID, channelID: channelID, priority: push.priority, payload: rendered.payload)),
                    priority: push.priority.rawValue, note: note, budgetLimited: push.budgetLimited
                )
            case .token:
                return PreparedSend(
                    target: push.target, token: push.token,
                    request: .device(.liveActivity(
                        deviceToken: push.token?.token ?? "", bundleID: configuration.bundleID, payload: rendered.payload, priority: push.priority
                    )),
                    priority: push.priority.rawValue, note: note, budgetLimited: push.budgetLimited
                )
            }
        }
        return PreparedRow(row: row, rev: rendered.rev, sends: sends, sync: rendered, message: nil)
    }

    private func prepareMessage(_ row: OutboxRow, now: Date) -> PreparedRow? {
        guard let message = OutboxMessage.decode(row.headers) else {
            finish(row, deadReason: "the message row has no readable headers", now: now)
            return nil
        }
        switch message.kind {
        case .channelDelete:
            guard let channelID = message.channelID else {
                finish(row, deadReason: "a channel deletion without a channel id", now: now)
                return nil
            }
            let send = PreparedSend(target: .channel(channelID), token: nil, request: .deleteChannel(channelID), priority: 10, note: message.note)
            return PreparedRow(row: row, rev: nil, sends: [send], sync: nil, message: message)
        case .start, .alert:
            if message.kind == .start, let key = row.contextKey, (try? store.contexts.context(key: key))??.state != .active {
                // Ended (or gone) before its start went out: a start now would open a card nothing ends.
                if let startID = message.startID {
                    try? store.starts.finish(id: startID, accepted: false, reason: "the context ended before the start went out", now: now)
                }
                finish(row, now: now)
                return nil
            }
            guard let tokenID = message.tokenID, let token = try? store.tokens.record(id: tokenID), token.status == .active else {
                if message.kind == .start, let startID = message.startID {
                    try? store.starts.finish(id: startID, accepted: false, reason: "the push-to-start token is no longer active", now: now)
                }
                finish(row, deadReason: "the token is no longer active: \(message.note)", now: now)
                return nil
            }
            let pushType = message.pushType.flatMap(APNSPushType.init(rawValue:)) ?? .alert
            let notification = APNSNotification(
                deviceToken: token.token, pushType: pushType, topic: pushType.topic(bundleID: configuration.bundleID),
                priority: APNSPriority(rawValue: message.priority ?? 10), expiration: message.expiration.map(APNSExpiration.init(seconds:)),
                collapseID: message.collapseID, payload: row.payload ?? []
            )
            let send = PreparedSend(
                target: .token(tokenID), token: token, request: .device(notification), priority: message.priority ?? 10, note: message.note
            )
            return PreparedRow(row: row, rev: message.rev, sends: [send], sync: nil, message: message)
        }
    }

    /// Hands one request to APNs; its answer lands in `answers` at `index`.
    private func perform(_ send: PreparedSend, index: Int, into answers: Answers, group: DispatchGroup) {
        group.enter()
        let done: @Sendable (APNSResult) -> Void = { result in
            answers.set(index, Outcome(send: send, result: result))
            group.leave()
        }
        switch send.request {
        case .device(let notification): sender.send(notification, completion: done)
        case .broadcast(let broadcast): sender.broadcast(broadcast, completion: done)
        case .deleteChannel(let channelID): sender.deleteChannel(bundleID: configuration.bundleID, channelID: channelID, completion: done)
        }
    }

    // MARK: Recording

    /// Records the answers to one row's requests and follows them.
    private func record(_ prepared: PreparedRow, outcomes: [Outcome]) {
        let row = prepared.row
        let answeredAt = configuration.clock()
        if !outcomes.isEmpty { metrics.dispatchLatency(max(0, answeredAt.timeIntervalSince(row.dueAt))) }
        var retryThisRow = false
        var deadReason: String?
        var channelGone: String?
        do {
            try store.write { transaction in
                for outcome in outcomes {
                    metrics.push(status: outcome.result.status, reason: outcome.result.reason?.rawValue)
                    if outcome.send.budgetLimited { metrics.budgetLimited() }
                    try store.deliveries.record(attempt(outcome, row: row, rev: prepared.rev, at: answeredAt), in: transaction)
                    switch outcome.result.outcome {
                    case .delivered, .tokenDead:
                        break
                    case .retry, .rotateToken:
                        if row.target != nil || row.kind == .message {
                            retryThisRow = true
                        } else if let contextKey = row.contextKey {
                            let delay = configuration.retryPolicy.delay(beforeRetry: 1)
                            try store.outbox.enqueueSync(
                                contextKey: contextKey, target: outcome.send.target, now: answeredAt,
                                dueAt: answeredAt.addingTimeInterval(Self.seconds(delay)), in: transaction
                            )
                        }
                    case .permanent:
                        if case .deleteChannel(let channelID) = outcome.send.request,
                            outcome.result.status == 404 || ["BadChannelId", "ChannelNotRegistered"].contains(outcome.result.reason?.rawValue ?? "") {
                            channelGone = channelID  // not there: nothing left to delete
                            continue
                        }
                        let reason = "APNs answered \(outcome.result.summary) (\(outcome.send.note)); not retried"
                        if row.target != nil || row.kind == .message {
                            deadReason = reason
                        } else if let contextKey = row.contextKey {
                            metrics.deadLetter()
                            try store.outbox.recordDeadTarget(
                                contextKey: contextKey, target: outcome.send.target, reason: reason, now: answeredAt, in: transaction
                            )
                        }
                    }
                    if case .deleteChannel(let channelID) = outcome.send.request, outcome.result.outcome == .delivered {
                        channelGone = channelID
                    }
                }
                if let sync = prepared.sync {
                    let delivered = outcomes.contains { $0.result.outcome == .delivered }
                    if sync.carriesHints, delivered {
                        try store.contexts.clearHints(key: sync.contextKey, sentRev: sync.rev, in: transaction)
                    }
                    if let state = sync.sentState, delivered {
                        try store.contexts.recordSent(key: sync.contextKey, contentState: state, now: sync.renderedAt, in: transaction)
                    }
                    // The end reached the channel (or never will): the context's channel goes. After a
                    // retryable answer it stays, for the retry of the end.
                    let channelAnswer = outcomes.first { if case .channel = $0.send.target { true } else { false } }?.result.outcome
                    let endSettled = switch channelAnswer {
                    case .delivered?, .permanent?, .tokenDead?: true
                    case .retry?, .rotateToken?, nil: false
                    }
                    if let channelID = sync.channelToRetire, endSettled {
                        try store.contexts.setChannel(key: sync.contextKey, channelID: nil, now: answeredAt, in: transaction)
                        try store.outbox.enqueueMessage(
                            idempotencyKey: "channel-delete:\(channelID)", contextKey: sync.contextKey, target: .channel(channelID),
                            headers: OutboxMessage(kind: .channelDelete, channelID: channelID, note: "delete the channel of ended \(sync.contextKey)").json,
                            payload: [], now: answeredAt, in: transaction
                        )
                    }
                }
            }
        } catch {
            // Recording failed. A message APNs accepted is not sent again (a second start would
            // be a second card); anything else is retried.
            retryThisRow = !(row.kind == .message && outcomes.contains { $0.result.outcome == .delivered })
        }
        if let channelGone { _ = try? store.channels.markDeleted(channelID: channelGone, now: answeredAt) }
        for outcome in outcomes {
            guard case .tokenDead(let since) = outcome.result.outcome, let token = outcome.send.token else { continue }
            // 410: only when APNs learnt it after the app last registered the token (engine.md).
            _ = try? store.tokens.markInvalid(
                id: token.id, reason: outcome.result.reason?.rawValue ?? "status \(outcome.result.status)", now: answeredAt,
                registeredBefore: since
            )
        }
        if let message = prepared.message, message.kind == .start, let startID = message.startID, let outcome = outcomes.first {
            switch outcome.result.outcome {
            case .delivered:
                try? store.starts.finish(id: startID, accepted: true, reason: nil, now: answeredAt)
                metrics.start(outcome: "sent")
            case .tokenDead, .permanent:
                try? store.starts.finish(id: startID, accepted: false, reason: outcome.result.summary, now: answeredAt)
                metrics.start(outcome: "failed")
            case .retry, .rotateToken:
                break
            }
        }
        if retryThisRow {
            // Sends so far: this row's, and for a one-target sync row the fan-out send before it.
            let sends = row.attempts + 1 + (row.kind == .sync && row.target != nil ? 1 : 0)
            if sends >= configuration.retryPolicy.maximumAttempts {
                if let message = prepared.message, message.kind == .start, let startID = message.startID {
                    try? store.starts.finish(id: startID, accepted: false, reason: "gave up after \(sends) attempts", now: answeredAt)
                    metrics.start(outcome: "failed")
                }
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

    private func attempt(_ outcome: Outcome, row: OutboxRow, rev: Int?, at date: Date) -> DeliveryAttempt {
        let (kind, target): (DeliveryTargetKind, String) = switch outcome.send.target {
        case .token(let id): (.token, String(id))
        case .channel(let id): (.channel, id)
        }
        let latency = outcome.result.latency.components
        return DeliveryAttempt(
            id: nil, outboxID: row.id, contextKey: row.contextKey, rev: rev, targetKind: kind, target: target,
            apnsID: outcome.result.apnsID ?? outcome.result.requestID, status: outcome.result.status,
            reason: outcome.result.reason?.rawValue ?? outcome.result.transportError, priority: outcome.send.priority,
            latencyMilliseconds: Double(latency.seconds) * 1000 + Double(latency.attoseconds) / 1e15, attemptedAt: date,
            note: outcome.send.note
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
