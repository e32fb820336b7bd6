import Foundation
import LivelineModel
import LivelineStore

extension Dispatcher {
    /// One page of a whole fan-out in flight: its requests, their answers, and when it went.
    private struct PageInFlight {
        let sends: [PreparedSend]
        let answers: Answers
        let group: DispatchGroup
        let sentAt: DispatchTime
    }

    /// How many pages of a whole fan-out are in flight at most (``stream(_:now:)``).
    static let pagesInFlight = 4

    /// Where a fan-out sent a page at a time stands.
    private struct StreamRun {
        var prepared: PreparedRow
        /// The tokens not read yet (nil: all were).
        var pages: TokenPages?
        var inFlight: [PageInFlight] = []
        var sent = 0
        /// Some token accepted it.
        var delivered = false
        /// This dispatcher still holds the row.
        var held = true
        /// The dispatcher is stopping: the row goes back without an attempt counted.
        var stopped = false

        /// The environments whose tokens are not being read yet (a token moved there is read
        /// with them: no retry of its own).
        var environmentsAhead: Set<PushEnvironment> {
            guard let pages else { return [] }
            return Set(pages.after == nil ? pages.environments : Array(pages.environments.dropFirst()))
        }
    }

    /// Sends a whole fan-out of more than one page a page at a time, at most ``pagesInFlight``
    /// pages of requests in flight: each page's answers are planned and recorded once they are
    /// all in (or its wait of ``answerTimeout`` ran out), renewing the row's lease, and the next
    /// page is read and sent; after the last, the row's own end (``DispatchPlanner/planEnd(_:delivered:stopped:at:random:)``).
    /// So what a fan-out holds is its pages in flight, whatever its number of tokens
    /// (`docs/engine.md`, "Fan-out for a sync"). It stops early — the requests in flight answered
    /// and recorded, the row sent again as a whole — when a page cannot be read, APNs answered
    /// nothing of a page while pages are left, a kept record still cannot be made once nothing is
    /// in flight, or the dispatcher is stopping (then without an attempt counted); when the lease
    /// was lost (another dispatcher holds the row), nothing of the row is decided here any more.
    /// Between pages the web push lane's answers are recorded and, once a second, the periodic
    /// work runs. Returns the lane's rows recorded meanwhile.
    func stream(_ head: PreparedRow, now: Date) -> Int {
        var random = SystemRandomNumberGenerator()
        var run = StreamRun(prepared: head, pages: head.remainingPages)
        run.prepared.remainingPages = nil
        // Held for a full lease from here (the batch's wait took some of the claim's).
        guard keepLease(of: head.row, random: &random) else { return 0 }
        run.inFlight = [launch(head.sends)]
        run.sent = head.sends.count
        var recorded = 0
        var lastPeriodic = ContinuousClock.now
        while true {
            // Called with nothing in flight too: there it waits for a kept record before the next page.
            fillWindow(&run, now: now)
            guard let page = run.inFlight.first else { break }
            recorded += waitForAnswers(page.group, until: page.sentAt + answerTimeout)
            run.inFlight.removeFirst()
            record(page, of: &run, random: &random)
            if pending.withLock({ $0.isEmpty }) { recorded += recordAnsweredWebPushes() }
            if !isStopping, ContinuousClock.now - lastPeriodic > .seconds(1) {
                periodic()
                lastPeriodic = .now
            }
        }
        guard run.held else { return recorded }
        // A fan-out ends clean only once every page was read and sent.
        if run.pages != nil, run.prepared.unfinished == nil {
            run.prepared.unfinished = "the fan-out ended with tokens not read; sent to \(run.sent)"
        }
        let end = configuration.clock()
        metrics.dispatchLatency(max(0, end.timeIntervalSince(run.prepared.row.dueAt)))
        recordInOrder(planner.planEnd(run.prepared, delivered: run.delivered, stopped: run.stopped, at: end, random: &random))
        return recorded
    }

    /// Reads and sends pages until ``pagesInFlight`` are in flight or none is left; stops the
    /// fan-out when the dispatcher is stopping, a page cannot be read, or answers kept after a
    /// failed recording still cannot be recorded once nothing is in flight (more pages would only
    /// add answers waiting in memory).
    private func fillWindow(_ run: inout StreamRun, now: Date) {
        while run.held, run.prepared.unfinished == nil, run.inFlight.count < Self.pagesInFlight, var next = run.pages,
            let rendered = run.prepared.sync
        {
            guard caughtUp(waiting: run.inFlight.isEmpty) else {
                if run.inFlight.isEmpty { run.prepared.unfinished = "the answers of a page could not be recorded; sent to \(run.sent)" }
                return
            }
            if isStopping {
                run.prepared.unfinished = "the dispatcher stopped after \(run.sent) of the fan-out's requests"
                run.stopped = true
                return
            }
            do {
                guard let sends = try nextSends(of: &next, rendered, now: now), !sends.isEmpty else {
                    run.pages = nil
                    return
                }
                run.pages = next.environments.isEmpty ? nil : next
                run.inFlight.append(launch(sends))
                run.sent += sends.count
            } catch {
                run.prepared.unfinished = "the fan-out's tokens could not all be read (\(error)); sent to \(run.sent)"
            }
        }
    }

    /// Whether no plan is kept from a failed recording, after trying the kept ones again (their
    /// backoff allowing); `waiting`: nothing else to do meanwhile, so it waits for their backoff,
    /// up to ``catchUpTries`` times.
    private func caughtUp(waiting: Bool) -> Bool {
        for attempt in 0...(waiting ? Self.catchUpTries : 0) {
            if attempt > 0 { Thread.sleep(forTimeInterval: 0.2) }
            if pending.withLock({ $0.isEmpty }) || (recordPending() != nil && pending.withLock({ $0.isEmpty })) { return true }
        }
        return false
    }

    /// Tries to record what a failed recording kept, 0.2 s apart, before a fan-out with nothing
    /// in flight stops (``fillWindow(_:now:)``).
    static let catchUpTries = 5

    /// Plans and records one answered page (renewing the lease); one that cannot be recorded now
    /// is kept (as any plan). A page APNs answered nothing of (an outage, a cut connection) while
    /// tokens are left to read stops the fan-out: it goes again as a whole after a backoff instead
    /// of each token on its own; once every token was read, a page's tokens are retried each on
    /// its own, as any answer's.
    private func record(_ page: PageInFlight, of run: inout StreamRun, random: inout some RandomNumberGenerator) {
        let outcomes = page.answers.outcomes(of: page.sends, missing: unanswered)
        run.delivered = run.delivered || outcomes.contains { $0.result.outcome == .delivered }
        if run.prepared.unfinished == nil, run.pages != nil, outcomes.allSatisfy({ $0.result.status == 0 }) {
            run.prepared.unfinished = "no answer to any request of a page (\(outcomes.first?.result.summary ?? "")); sent to \(run.sent)"
        }
        let answeredAt = configuration.clock()
        count(outcomes, of: run.prepared, answeredAt: answeredAt, latency: false)
        let pageRow = PreparedRow(row: run.prepared.row, rev: run.prepared.rev, sends: page.sends, sync: run.prepared.sync, message: nil)
        let plan = planner.planPage(
            pageRow, outcomes: outcomes, leaseUntil: answeredAt.addingTimeInterval(configuration.lease),
            retriesTargets: run.prepared.unfinished == nil, environmentsAhead: run.environmentsAhead, at: answeredAt, random: &random)
        // Kept when it fails: the next pages wait for it (``fillWindow(_:now:)``); after the last
        // page, the end is recorded behind it.
        if recordPage(plan) == .lost { run.held = false }
    }

    /// Renews the lease of a row about to be streamed; false when the dispatcher no longer holds
    /// it (its lease ran out), is stopping, or earlier answers wait for the database: then the row
    /// goes back, due now, without an attempt counted (behind the kept plans).
    private func keepLease(of row: OutboxRow, random: inout some RandomNumberGenerator) -> Bool {
        let now = configuration.clock()
        let giveBack = { (why: String) in
            self.recordInOrder(DispatchPlan(rowID: row.id, contextKey: row.contextKey, at: now, row: .postpone(until: now, reason: why)))
        }
        if isStopping {
            giveBack("the dispatcher stopped before this fan-out went out")
            return false
        }
        guard caughtUp(waiting: false) else {
            giveBack("earlier answers were not recorded yet when this fan-out was to go out")
            return false
        }
        let keep = DispatchPlan(rowID: row.id, contextKey: row.contextKey, at: now, row: .keep(leaseUntil: now + configuration.lease))
        switch recordPage(keep) {
        case .held: return true
        case .lost: return false
        case .failed:
            giveBack("its lease could not be renewed: the database failed")
            return false
        }
    }

    /// Sends `sends` as one page, from ``launcher``, while the dispatcher's thread reads and
    /// records. The page's group is left once every request was handed over and answered.
    private func launch(_ sends: [PreparedSend]) -> PageInFlight {
        let answers = Answers(count: sends.count)
        let group = DispatchGroup()
        let sentAt = DispatchTime.now()
        group.enter()
        launcher.async { [weak self] in
            // Weak, and let go before the group is left: the launcher must never hold the last
            // reference to the dispatcher once its thread could see the page done and stop.
            if let self {
                for (index, send) in sends.enumerated() { self.perform(send, index: index, into: answers, group: group) }
            }
            group.leave()
        }
        return PageInFlight(sends: sends, answers: answers, group: group, sentAt: sentAt)
    }

    /// What became of a page's plan.
    enum PageRecord { case held, lost, failed }

    /// Records one page's plan (or a lease renewal): ``PageRecord/held`` while this dispatcher
    /// still holds the row, ``PageRecord/lost`` when another one took it, ``PageRecord/failed``
    /// when it could not be recorded now (kept, as any plan, to be recorded before anything new is
    /// claimed; or, failing for good, logged).
    private func recordPage(_ plan: DispatchPlan) -> PageRecord {
        guard caughtUp(waiting: false) else {
            recordInOrder(plan)
            return .failed
        }
        do {
            let applied = try apply(plan)
            settled(plan, applied)
            return applied.held ? .held : .lost
        } catch {
            _ = recordingFailed(plan, error: error, failures: 1)
            return .failed
        }
    }

    /// Records `plan`, behind the plans kept from earlier failures when there are any (the row's
    /// records stay in the order they were made).
    private func recordInOrder(_ plan: DispatchPlan) {
        let queued = pending.withLock { pending -> Bool in
            guard !pending.isEmpty else { return false }
            pending.append(PendingPlan(plan: plan, failures: 0, notBefore: configuration.clock()))
            return true
        }
        if !queued { record(plan) }
    }
}
