import Foundation
import LivelineLog
import LivelineModel
import LivelinePushWire
import LivelineStore
import Synchronization

/// Sends what the outbox holds: claims due rows with a lease (several dispatchers never send one
/// row at the same moment), prepares each (a context's push rendered at send time and checked
/// against its contract, fanned out to its broadcast channel and every `la-update` token
/// registered with its key at the priority the budget allows; message rows — starts, alerts,
/// channel deletions — as they were rendered), sends, and then, per row, turns APNs' answers into
/// a ``DispatchPlan`` (``DispatchPlanner``, a pure function) that is applied in one write
/// transaction: the delivery records, the tokens APNs called dead, the start's verdict, the
/// context's bookkeeping and the row's own change, all or nothing; a whole fan-out of more than one
/// page of tokens is sent and recorded a page at a time (`Dispatcher+Streaming.swift`). Delivery
/// is at least once.
///
/// Nothing is swallowed. A plan that cannot be applied is kept and applied again before anything
/// new is claimed (so no row of this dispatcher is taken back and sent again before its answers
/// are recorded: an accepted start is not sent twice); one that never can be — a failure other
/// than a busy or failing database — moves its row on as planned and writes every answer to the
/// log instead. Every failure is an event in the engine's log (``EngineEvent``).
///
/// It runs on a thread of its own, not on the cooperative pool: a batch is prepared, every push
/// of it sent at once, the thread waits for APNs' answers, and records them. Web pushes are not
/// waited for: their rows are recorded as their answers come (`Dispatcher+WebPushLane.swift`). So
/// ``stop(timeout:)`` can wait for it from anywhere, a task included. Between batches it runs the
/// engine's periodic work (deadlines, unanswered starts).
public final class Dispatcher: Sendable {
    let store: Store
    /// Reaches the default environment: its tokens and channels.
    let sender: any PushSender
    /// Reach the other environments, for their tokens and channels.
    let otherSenders: [PushEnvironment: any PushSender]
    /// Reaches browsers' push services (nil: web pushes cannot be sent).
    let webPush: WebPushTransport?
    let renderer: SyncRenderer
    let configuration: EngineConfiguration
    public let metrics: EngineMetrics
    let logger: Logger
    let planner: DispatchPlanner
    let periodic: @Sendable () -> Void
    /// Follows APNs' verdicts on renewals' successor starts (`docs/engine.md`, "Renewal").
    let renewer: Renewer?

    private struct Running {
        var stopping = false
        /// The running thread's end: signalled when it left its loop, and again by every wait,
        /// so a stop can be waited for more than once. Nil before the first start.
        var finished: DispatchSemaphore?
        /// The running thread's number (``Dispatcher/stop(timeout:)`` cannot wait for itself).
        var thread: ObjectIdentifier?
    }
    private let running = Mutex(Running())

    /// A plan whose transaction failed, waiting to be applied again.
    struct PendingPlan: Sendable {
        var plan: DispatchPlan
        var failures: Int
        /// Not tried again before this (backoff, by the engine's clock)…
        var notBefore: Date
        /// …unless it failed for a full disk and another write has committed since: then at once
        /// (`docs/reliability.md`, "Disk full").
        var waitsForSpace = false
    }
    /// Plans not yet applied, oldest first.
    let pending = Mutex<[PendingPlan]>([])
    /// Claims failed in a row (only the first failures and then every power of two are logged).
    let claimFailures = Atomic<Int>(0)
    /// When this dispatcher last took back expired leases (by the engine's clock): at most once
    /// a second, not on every claim.
    let lastReclaim = Mutex<Date?>(nil)
    /// When the dispatcher last handled a row (``round()``).
    let lastWork = Mutex<ContinuousClock.Instant?>(nil)
    /// The web push lane (`Dispatcher+WebPushLane.swift`): rows sent and not yet recorded.
    let webPushFlights = Mutex(WebPushFlights())
    /// Bumped whenever a row of the lane has all its answers.
    let webPushAnswered = ChangeSignal()
    /// Hands a fan-out's pages to APNs in order while the dispatcher reads and records
    /// (``stream(_:now:)``).
    let launcher = DispatchQueue(label: "liveline-dispatch-launch")

    init(
        store: Store, sender: any PushSender, otherSenders: [PushEnvironment: any PushSender] = [:], webPush: WebPushTransport? = nil,
        renderer: SyncRenderer, configuration: EngineConfiguration, metrics: EngineMetrics,
        logger: Logger = .discarding, periodic: @escaping @Sendable () -> Void = {}, renewer: Renewer? = nil
    ) {
        self.renewer = renewer
        self.store = store
        self.sender = sender
        self.otherSenders = otherSenders
        self.webPush = webPush
        self.renderer = renderer
        self.configuration = configuration
        self.metrics = metrics
        self.logger = logger
        self.planner = DispatchPlanner(retryPolicy: configuration.retryPolicy)
        self.periodic = periodic
        // The disk's episode ended: the thread looks at once (`docs/reliability.md`, "Disk full").
        store.database.onStorageEvent { [weak self] event in
            guard case .freed = event, let dispatcher = self else { return }
            dispatcher.store.outbox.enqueued.bump()
        }
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
            // The web pushes in flight get a moment to answer; their rows are recorded after what
            // was kept (oldest first). One that answers later keeps its row leased: it comes back
            // after its lease, to be sent again (at least once).
            if let dispatcher = self { _ = dispatcher.waitForWebPushes(timeout: Self.webPushGraceAtStop) }
            self?.recordPendingBeforeStopping()
            if let dispatcher = self, dispatcher.pending.withLock({ $0.isEmpty }) { _ = dispatcher.recordAnsweredWebPushes() }
            finished.signal()
        }
        thread.name = "liveline-dispatcher"
        running.withLock { $0.thread = ObjectIdentifier(thread) }
        thread.start()
    }

    /// Stops sending: the batch in flight finishes (its answers are recorded, and those of the
    /// web pushes that answer within ``webPushGraceAtStop``), then the thread ends. Returns false
    /// when that took longer than `timeout` (rows still leased come back to any dispatcher when
    /// their lease ends); calling it again waits again. Safe to call from any
    /// thread or task; from the dispatcher's own thread (a periodic task) it asks the thread to
    /// stop and returns false at once, since a thread cannot wait for its own end.
    @discardableResult
    public func stop(timeout: Duration = .seconds(10)) -> Bool {
        guard
            let (finished, thread) = running.withLock({ running -> (DispatchSemaphore, ObjectIdentifier?)? in
                running.stopping = true
                return running.finished.map { ($0, running.thread) }
            })
        else { return true }
        if let thread, thread == ObjectIdentifier(Thread.current) { return false }
        store.outbox.enqueued.bump()  // wakes the thread if it sleeps
        guard finished.wait(timeout: DispatchTime.after(timeout)) == .success else { return false }
        finished.signal()
        return true
    }

    var isStopping: Bool { running.withLock { $0.stopping } }

    /// The periodic work, one batch, and a wait for the next enqueue when there was nothing to send.
    ///
    /// On a database other instances write to, their rows wake this one through notifications
    /// that are spaced (`docs/engine.md`, "Storage"): for a moment after it had work, the
    /// dispatcher looks again every ``hotPoll`` instead, so rows that follow one another closely
    /// are not held back by that spacing.
    private func round() {
        periodic()
        let seen = store.outbox.enqueued.value
        let handled = runOnce()
        let now = ContinuousClock.now
        if handled > 0 { lastWork.withLock { $0 = now } }
        guard handled == 0, !isStopping else { return }
        let hot = store.database.isShared && lastWork.withLock { $0.map { now - $0 < Self.hotWindow } ?? false }
        store.outbox.enqueued.waitBlocking(past: seen, timeout: hot ? Self.hotPoll : configuration.idlePoll)
    }

    /// How long a stopping dispatcher waits for the web pushes in flight.
    static let webPushGraceAtStop: Duration = .seconds(2)
    /// Batches of web pushes in flight at most (``runOnce()``).
    static let webPushLaneLimit = 8

    /// How often a dispatcher on a shared database looks for rows for ``hotWindow`` after its last.
    static let hotPoll: Duration = .milliseconds(5)
    static let hotWindow: Duration = .milliseconds(250)

    /// Records the answers still waiting (and those of the web push lane), then claims one
    /// batch, sends it and records the answers; returns how many rows it handled (0 while earlier
    /// answers cannot be recorded: nothing is claimed then). Blocks the calling thread until APNs
    /// answered every push of the batch; web pushes are not waited for (their rows are recorded
    /// by a later call, `Dispatcher+WebPushLane.swift`).
    @discardableResult
    public func runOnce() -> Int {
        // Answers not yet recorded come first: while one cannot be, nothing new is claimed, so
        // this dispatcher never takes back (and sends again) a row whose answers it still holds.
        guard let earlier = recordPending() else { return 0 }
        var recorded = earlier + recordAnsweredWebPushes()
        guard pending.withLock({ $0.isEmpty }) else { return recorded }  // the lane's recording failed: kept, claim nothing
        // A push service that answers slowly cannot make the lane grow without end: past this
        // many rows in flight nothing new is claimed (APNs rows neither) until answers come
        // (they wake the thread).
        guard webPushFlights.withLock({ $0.inFlight }) < Self.webPushLaneLimit * configuration.batchSize else { return recorded }
        // A stopping dispatcher claims nothing more (its thread ends after this round).
        guard !isStopping, let claim = claimBatch() else { return recorded }
        // Fan-outs of contexts nobody follows were completed by the claim (nothing to send).
        recorded += claim.completed
        guard !claim.rows.isEmpty else { return recorded }
        let sent = send(claim.rows, recorded: &recorded)
        return recorded + sent
    }

    /// Claims the next batch of due rows (taking back expired leases at most once a second);
    /// nil when the claim failed (logged).
    private func claimBatch() -> OutboxRepository.Claim? {
        do {
            let now = configuration.clock()
            let reclaiming = lastReclaim.withLock { last in
                guard let previous = last, abs(now.timeIntervalSince(previous)) < 1 else {
                    last = now
                    return true
                }
                return false
            }
            let claim = try store.outbox.claimForSending(
                owner: configuration.dispatcherID, now: now, lease: configuration.lease, limit: configuration.batchSize, reclaiming: reclaiming
            )
            claimFailures.store(0, ordering: .relaxed)
            return claim
        } catch {
            claimFailed(error)
            return nil
        }
    }

    /// Prepares and sends the claimed `rows`, waits for APNs' answers and records the plans;
    /// `recorded` counts the web push lane's rows recorded meanwhile. Returns the rows handled.
    private func send(_ rows: [OutboxRow], recorded: inout Int) -> Int {
        // The wait for answers counts from here: preparing (rendering) the batch uses the lease too.
        let claimed = DispatchTime.now()
        let now = configuration.clock()
        var random = SystemRandomNumberGenerator()
        var sending: [(prepared: PreparedRow, answers: Answers)] = []
        let group = DispatchGroup()
        let batch = readForBatch(rows)
        let prepared = prepareMessagesInParallel(rows, now: now, batch: batch)
        // Rows with nothing to send (a postponement, a dead letter, …) are recorded
        // together, in one write before the wait for answers, not one write each.
        var unsent: [DispatchPlan] = []
        // A whole fan-out of more than a page: sent a page at a time once the batch is recorded;
        // one a round, so its lease is renewed before it ran out (another one goes back, due now).
        var stream: PreparedRow?
        for (index, row) in rows.enumerated() {
            switch prepared[index] ?? prepare(row, now: now, batch: batch) {
            case .unsent(let reason):
                unsent.append(planner.plan(row, unsent: reason, at: now, random: &random))
            case .send(let prepared) where travelsInWebPushLane(prepared):
                sendInWebPushLane(prepared)
            case .send(let prepared) where prepared.remainingPages != nil && stream == nil:
                stream = prepared
            case .send(let prepared) where prepared.remainingPages != nil:
                let why = "another fan-out of many tokens goes first; this one is sent in the next round"
                unsent.append(planner.plan(prepared.row, unsent: .postponed(until: now, reason: why), at: now, random: &random))
            case .send(let prepared):
                let answers = Answers(count: prepared.sends.count)
                for (index, send) in prepared.sends.enumerated() { perform(send, index: index, into: answers, group: group) }
                sending.append((prepared, answers))
            }
        }
        record(batch: unsent)
        recorded += waitForAnswers(group, until: claimed + answerTimeout)
        let answeredAt = configuration.clock()
        let plans = sending.map { prepared, answers in
            let outcomes = answers.outcomes(of: prepared.sends, missing: unanswered)
            count(outcomes, of: prepared, answeredAt: answeredAt)
            return planner.plan(prepared, outcomes: outcomes, at: answeredAt, random: &random)
        }
        record(batch: plans)
        if let stream { recorded += self.stream(stream, now: now) }
        return rows.count
    }

    /// Waits for the answers `group` counts until `deadline` (a batch's: ``answerTimeout`` from
    /// the claim): a request APNs never answers must not stop all sending (it then counts as
    /// unanswered: retried with backoff, a late answer ignored). Meanwhile the web push lane's
    /// answers are recorded as they come (every ``lanePoll``), so a long wait here does not keep
    /// them past their rows' lease; returns how many rows of the lane were recorded.
    func waitForAnswers(_ group: DispatchGroup, until deadline: DispatchTime) -> Int {
        var recorded = 0
        while group.wait(timeout: min(deadline, .after(Self.lanePoll))) == .timedOut, DispatchTime.now() < deadline {
            if pending.withLock({ $0.isEmpty }) { recorded += recordAnsweredWebPushes() }
        }
        return recorded
    }

    /// The outcome of `send` when no answer came within ``answerTimeout``: retried.
    func unanswered(_ send: PreparedSend) -> SendOutcome {
        SendOutcome(
            send: send,
            result: APNSResult(status: 0, transportError: "no answer within \(Int(answerTimeout)) s", outcome: .retry(newConnection: true)))
    }

    /// How often a batch waiting for APNs records the web push lane's answers.
    static let lanePoll: Duration = .milliseconds(50)

    /// The preparations of the batch's message rows, made on every core at once (a web push's
    /// encryption is the costly part of sending it; message rows are independent of each other
    /// and read nothing another one writes), by index. Sync rows are left to be prepared in order
    /// (their rendering takes the context's next push timestamp).
    private func prepareMessagesInParallel(_ rows: [OutboxRow], now: Date, batch: BatchReads) -> [Int: Preparation] {
        let messages = rows.indices.filter { rows[$0].kind == .message }
        guard messages.count > 1 else { return [:] }
        let results = Mutex<[Int: Preparation]>([:])
        DispatchQueue.concurrentPerform(iterations: messages.count) { position in
            let index = messages[position]
            let preparation = prepare(rows[index], now: now, batch: batch)
            results.withLock { $0[index] = preparation }
        }
        return results.withLock { $0 }
    }

    /// How long a batch waits for APNs' answers: well inside the rows' lease.
    var answerTimeout: TimeInterval { max(1, min(60, configuration.lease * 0.8)) }

    /// Runs batches until nothing is due (for tests and tools).
    public func drain(maxBatches: Int = 10_000) {
        // Stops at the first batch that handled nothing (a `for … where` would run all of them)
        // once no web push is in flight either (their rows are recorded by the next batch).
        var batches = 0
        while batches < maxBatches {
            if runOnce() > 0 {
                batches += 1
                continue
            }
            let (inFlight, answered) = webPushFlights.withLock { ($0.inFlight, !$0.answered.isEmpty) }
            if inFlight > 0 {
                guard waitForWebPushes(timeout: .seconds(answerTimeout + 5)) else { return }
            } else if !answered || runOnce() == 0 {
                return  // nothing left, or answers that cannot be recorded now (kept)
            }
            batches += 1
        }
    }

    // MARK: Sending

    /// The answers to one row's requests, filled from the client's I/O thread; read once the
    /// batch stopped waiting (later answers are not looked at), or, in the web push lane, once
    /// all are in. A whole fan-out's grow as its pages are sent.
    final class Answers: Sendable {
        private let collected: Mutex<[APNSResult?]>
        init(count: Int) { collected = Mutex(Array(repeating: nil, count: count)) }
        func set(_ index: Int, _ result: APNSResult) {
            collected.withLock { answers in
                if index >= answers.count { answers += Array(repeating: nil, count: index + 1 - answers.count) }
                answers[index] = result
            }
        }
        /// Each of `sends` with its answer, read under one lock; `missing` stands in for an
        /// answer that did not come (nil: the request is left out).
        func outcomes(of sends: [PreparedSend], missing: (PreparedSend) -> SendOutcome?) -> [SendOutcome] {
            let answers = collected.withLock { $0 }
            return sends.indices.compactMap { index in
                if index < answers.count, let result = answers[index] { return SendOutcome(send: sends[index], result: result) }
                return missing(sends[index])
            }
        }
    }

    /// Sends `send`; its answer lands in `answers` at `index`, then `group` is left (a batch
    /// waits on it) and `then` runs (the web push lane's bookkeeping).
    func perform(
        _ send: PreparedSend, index: Int, into answers: Answers, group: DispatchGroup? = nil, then: (@Sendable () -> Void)? = nil
    ) {
        group?.enter()
        let done: @Sendable (APNSResult) -> Void = { result in
            answers.set(index, result)
            group?.leave()
            then?()
        }
        // Each request goes to its environment's APNs (a token's, a channel's).
        let sender = send.environment.flatMap { otherSenders[$0] } ?? self.sender
        switch send.request {
        case .device(let notification): sender.send(notification, completion: done)
        case .broadcast(let broadcast): sender.broadcast(broadcast, completion: done)
        case .deleteChannel(let channelID): sender.deleteChannel(bundleID: configuration.bundleID, channelID: channelID, completion: done)
        case .webPush(let request):
            guard let webPush else {
                return done(APNSResult(status: 0, transportError: "web push is not configured on this server", outcome: .permanent))
            }
            webPush.sender.send(request) { response in
                // A refused VAPID token is not used again (a key or clock change made it bad).
                if response.status == 401 || response.status == 403 { webPush.identity.forgetAuthorization(for: request.endpoint) }
                done(response.result)
            }
        }
    }

    /// The answers in `/metrics` (status and reason, budget pressure, latency from the row being
    /// due unless `latency` is false — a page of a fan-out, whose row counts it once at its end;
    /// a channel's deletion apart from the pushes) and, at debug level, in the log.
    func count(_ outcomes: [SendOutcome], of prepared: PreparedRow, answeredAt: Date, latency: Bool = true) {
        let row = prepared.row
        if latency, !outcomes.isEmpty { metrics.dispatchLatency(max(0, answeredAt.timeIntervalSince(row.dueAt))) }
        let debug = logger.isEnabled(.debug)
        // A run of alike answers is counted at once: a fan-out's are mostly alike.
        var run: (answer: EngineMetrics.PushAnswer, count: Int)?
        var budgetLimited = 0
        for outcome in outcomes {
            switch outcome.send.request {
            case .webPush:
                metrics.webPush(status: outcome.result.status)
            case .deleteChannel:
                metrics.channelOperation(
                    .delete, environment: outcome.send.environment ?? configuration.environment, status: outcome.result.status,
                    reason: outcome.result.reason?.rawValue)
            case .device, .broadcast:
                let answer = EngineMetrics.PushAnswer(
                    environment: outcome.send.environment ?? configuration.environment, status: outcome.result.status,
                    reason: outcome.result.reason?.rawValue ?? "")
                if let current = run, current.answer == answer {
                    run?.count += 1
                } else {
                    if let current = run { metrics.push(current.answer, count: current.count) }
                    run = (answer, 1)
                }
            }
            if outcome.send.budgetLimited { budgetLimited += 1 }
            if debug {
                var event = DispatchPlanner.event(.debug, .pushAnswered, outcome, row: row, rev: prepared.rev, message: outcome.send.note)
                if event.status == 0, let transportError = outcome.result.transportError { event.message += " — no answer: \(transportError)" }
                logger.record(event)
            }
        }
        if let run { metrics.push(run.answer, count: run.count) }
        if budgetLimited > 0 { metrics.budgetLimited(budgetLimited) }
    }

    /// Logs a failed claim: the first three of a streak, then every power of two.
    private func claimFailed(_ error: any Error) {
        let streak = claimFailures.add(1, ordering: .relaxed).newValue
        guard streak <= 3 || streak & (streak - 1) == 0 else { return }
        let busy = Self.isTransient(error)
        logger.record(
            EngineEvent(
                EngineEvent.level(busy ? .warning : .error, for: error), .claimFailed,
                message: "could not claim due outbox rows (\(streak) in a row): \(error); tried again on the next round"
            ))
    }

    /// A write refused because the disk holding the database is full.
    static func isStorageFull(_ error: any Error) -> Bool { (error as? StoreError)?.code == .storageFull }

    /// A busy or failing database, or a full disk, which a later attempt may find working again.
    static func isTransient(_ error: any Error) -> Bool {
        guard let error = error as? StoreError else { return false }
        return error.code == .busy || error.code == .io || error.code == .storageFull || error.code == .unavailable
    }
}
