import Foundation
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

    /// Sends a whole fan-out of more than one page a page at a time, at most ``pagesInFlight``
    /// pages of requests in flight: each page's answers are planned and recorded once they are
    /// all in (or its wait of ``answerTimeout`` ran out), renewing the row's lease, and the next
    /// page is read and sent; after the last, the row's own end (``DispatchPlanner/planEnd(_:delivered:at:random:)``).
    /// So what a fan-out holds is its pages in flight, whatever its number of tokens
    /// (`docs/engine.md`, "Fan-out for a sync"). It stops early — the requests in flight answered
    /// and recorded, the row sent again as a whole — when a page cannot be read, a page's answers
    /// cannot be recorded or the dispatcher is stopping; when the lease was lost (another
    /// dispatcher holds the row), nothing of the row is decided here any more. Returns the web push
    /// lane's rows recorded meanwhile.
    func stream(_ head: PreparedRow, now: Date) -> Int {
        var random = SystemRandomNumberGenerator()
        var prepared = head
        var pages = head.remainingPages
        prepared.remainingPages = nil
        // Taken up from the batch's wait: the row is held for a full lease from here.
        guard keepLease(of: prepared, random: &random) else { return 0 }
        var inFlight: [PageInFlight] = [launch(head.sends)]
        var sent = head.sends.count
        var delivered = false
        var held = true
        var recorded = 0
        while let page = inFlight.first {
            // Fill the window: the next pages go out while the oldest is answered.
            while held, prepared.unfinished == nil, inFlight.count < Self.pagesInFlight, var next = pages, let rendered = prepared.sync {
                if isStopping {
                    prepared.unfinished = "the dispatcher stopped after \(sent) of the fan-out's requests"
                    break
                }
                do {
                    guard let sends = try nextSends(of: &next, rendered, now: now), !sends.isEmpty else {
                        pages = nil
                        break
                    }
                    pages = next.environments.isEmpty ? nil : next
                    inFlight.append(launch(sends))
                    sent += sends.count
                } catch {
                    prepared.unfinished = "the fan-out's tokens could not all be read (\(error)); sent to \(sent)"
                }
            }
            recorded += waitForAnswers(page.group, until: page.sentAt + answerTimeout)
            inFlight.removeFirst()
            let outcomes = outcomes(of: page)
            delivered = delivered || outcomes.contains { $0.result.outcome == .delivered }
            let answeredAt = configuration.clock()
            count(outcomes, of: prepared, answeredAt: answeredAt, latency: false)
            let pageRow = PreparedRow(row: prepared.row, rev: prepared.rev, sends: page.sends, sync: prepared.sync, message: nil)
            let plan = planner.planPage(
                pageRow, outcomes: outcomes, leaseUntil: answeredAt.addingTimeInterval(configuration.lease), at: answeredAt, random: &random)
            switch recordPage(plan) {
            case .held: break
            case .lost: held = false
            case .failed: prepared.unfinished = prepared.unfinished ?? "the answers of a page could not be recorded; sent to \(sent)"
            }
        }
        guard held else { return recorded }
        let end = configuration.clock()
        if sent > 0 { metrics.dispatchLatency(max(0, end.timeIntervalSince(prepared.row.dueAt))) }
        recordInOrder(planner.planEnd(prepared, delivered: delivered, at: end, random: &random))
        return recorded
    }

    /// Renews the lease of a row about to be streamed; false (and the row given back, or left
    /// to its lease) when the dispatcher no longer holds it or the database cannot say.
    private func keepLease(of prepared: PreparedRow, random: inout some RandomNumberGenerator) -> Bool {
        let now = configuration.clock()
        let keep = DispatchPlan(
            rowID: prepared.row.id, contextKey: prepared.row.contextKey, at: now, row: .keep(leaseUntil: now + configuration.lease))
        guard pending.withLock({ $0.isEmpty }) else {
            // Earlier answers wait for the database: this row sends nothing now and goes again.
            recordInOrder(planner.plan(prepared.row, unsent: .databaseUnavailable("earlier answers are not recorded yet"), at: now, random: &random))
            return false
        }
        return recordPage(keep) == .held
    }

    /// Sends `sends` as one page.
    private func launch(_ sends: [PreparedSend]) -> PageInFlight {
        let answers = Answers(count: sends.count)
        let group = DispatchGroup()
        let sentAt = DispatchTime.now()
        for (index, send) in sends.enumerated() { perform(send, index: index, into: answers, group: group) }
        return PageInFlight(sends: sends, answers: answers, group: group, sentAt: sentAt)
    }

    /// A page's answers in the order of its requests; one not answered in time counts as
    /// unanswered (retried).
    private func outcomes(of page: PageInFlight) -> [SendOutcome] {
        page.sends.enumerated().map { page.answers.outcome($0, of: $1) ?? unanswered($1) }
    }

    /// What became of a page's plan.
    enum PageRecord { case held, lost, failed }

    /// Records one page's plan (or a lease renewal): ``PageRecord/held`` while this dispatcher
    /// still holds the row, ``PageRecord/lost`` when another one took it, ``PageRecord/failed``
    /// when it could not be recorded now (kept, as any plan, to be recorded before anything new is
    /// claimed; or, failing for good, logged).
    private func recordPage(_ plan: DispatchPlan) -> PageRecord {
        guard pending.withLock({ $0.isEmpty }) else {
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
