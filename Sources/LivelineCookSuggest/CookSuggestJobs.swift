import Foundation
import LivelineEngine
import LivelineLog
import LivelineModel
import LivelineStore

/// Runs the jobs that carry sessions on (`cook_suggest_jobs`): the invitation, generating the
/// proposals (once the think time since the session became `generating` is over), finalizing. A job is claimed with a lease, so two instances never run one at the
/// same time and one a killed server was running is run again once its lease is over; it is done
/// only once it did what it is for, else tried again later (1, 2, 4 … 60 s). Every job is safe to
/// run twice: starts are one per device and context, the notification one per dedupe key, and
/// generating and finalizing do nothing to a session that moved on.
struct CookSuggestJobs: Sendable {
    let domain: CookSuggestDomain
    let logger: Logger
    /// How long a claimed job is its runner's.
    static let lease: TimeInterval = 10
    /// Tries of one job before it is given up.
    static let maximumAttempts = 64

    /// Runs every job that is due; the invitation needs `engine` (without one it waits).
    func runDue(engine: Engine?, now: Date) {
        let due: [(session: String, kind: CookSuggestJobKind)]
        do {
            due = try domain.door.read { read in
                try read.sql.query(
                    """
                    SELECT session_id, kind FROM cook_suggest_jobs
                    WHERE done_at IS NULL AND (lease_until IS NULL OR lease_until < $1)
                        AND ((kind = 'generate' AND due_at <= $2) OR (kind <> 'generate' AND due_at <= $1))
                    ORDER BY due_at LIMIT 50
                    """, [SQLValue(now), SQLValue(now.addingTimeInterval(-domain.thinkTime))]
                ).compactMap { row -> (session: String, kind: CookSuggestJobKind)? in
                    guard let kind = CookSuggestJobKind(rawValue: try row.string("kind")) else { return nil }
                    return (try row.string("session_id"), kind)
                }
            }
        } catch {
            logger.warning("cooksuggest.jobsFailed", [("message", .string("reading the due jobs failed (tried again on the next sweep): \(error)"))])
            return
        }
        for job in due where job.kind != .invite || engine != nil {
            run(job.kind, session: job.session, engine: engine, now: now)
        }
    }

    /// Claims the job and runs it; false when another runner has it.
    @discardableResult
    func run(_ kind: CookSuggestJobKind, session: String, engine: Engine?, now: Date) -> Bool {
        do {
            let claimed = try domain.door.write(now: now) { change in
                try change.sql.execute(
                    """
                    UPDATE cook_suggest_jobs SET lease_until = $3, attempts = attempts + 1
                    WHERE session_id = $1 AND kind = $2 AND done_at IS NULL AND due_at <= $5 AND (lease_until IS NULL OR lease_until < $4)
                    """,
                    [
                        .text(session), .text(kind.rawValue), SQLValue(now.addingTimeInterval(Self.lease)), SQLValue(now),
                        // Generating waits out the think time from when it became due.
                        SQLValue(kind == .generate ? now.addingTimeInterval(-domain.thinkTime) : now),
                    ]
                ) == 1
            }
            guard claimed else { return false }
        } catch {
            logger.warning("cooksuggest.jobsFailed", [("message", .string("claiming the \(kind.rawValue) job of \(session) failed: \(error)"))])
            return false
        }
        do {
            switch kind {
            case .invite:
                guard let engine else { throw EngineError("the engine is not running yet") }
                try invite(session, engine: engine)
            case .generate: try domain.generate(sessionID: session, now: now)
            case .finalize: try domain.finalize(sessionID: session, now: now)
            }
            try domain.door.write(now: now) { change in
                try change.sql.execute(
                    "UPDATE cook_suggest_jobs SET done_at = $3, lease_until = NULL WHERE session_id = $1 AND kind = $2",
                    [.text(session), .text(kind.rawValue), SQLValue(now)])
            }
        } catch {
            // An error, not a warning: a job that fails holds a session up until it is fixed.
            logger.error(
                "cooksuggest.jobFailed",
                [("session", .string(session)), ("job", .string(kind.rawValue)), ("message", .string("\(error) (tried again later)"))])
            try? domain.door.write(now: now) { change in
                let attempts =
                    try change.sql.queryOne(
                        "SELECT attempts FROM cook_suggest_jobs WHERE session_id = $1 AND kind = $2", [.text(session), .text(kind.rawValue)]
                    )?.int("attempts") ?? 1
                // Given up after `maximumAttempts` (about an hour): the session's TTL ends it.
                let givenUp = attempts >= Self.maximumAttempts
                try change.sql.execute(
                    """
                    UPDATE cook_suggest_jobs SET lease_until = NULL, due_at = $3, last_error = $4, done_at = $5
                    WHERE session_id = $1 AND kind = $2
                    """,
                    [
                        .text(session), .text(kind.rawValue), SQLValue(now.addingTimeInterval(min(60, pow(2, Double(attempts - 1))))),
                        .text(String(((givenUp ? "gave up after \(attempts) attempts: " : "") + "\(error)").prefix(500))),
                        givenUp ? SQLValue(now) : .null,
                    ])
            }
        }
        return true
    }

    /// The partner's invitation (`docs/features/cook-suggest.md`, "Invitation"): the card by
    /// push-to-start on their devices, and the notification through the inbox, alert push and web
    /// push. A session that ended first invites nobody; one that ended meanwhile resolves it.
    func invite(_ sessionID: String, engine: Engine) throws {
        guard let view = try domain.door.read({ read in try domain.view(sessionID, in: read.sql) }), let partner = view.session.partnerID
        else { return }
        guard !view.session.state.isFinal else {
            // Over before the invitation went out, or a crash came between its notify and this
            // check: what there is of it is resolved.
            try engine.resolve(userID: partner, dedupeKey: view.session.invitationKey)
            return
        }
        // A partner who left is invited no more.
        guard view.participant(partner)?.present == true else { return }
        let initiator = view.users[view.session.initiatorID]?.name ?? "?"
        let english = view.users[partner]?.locale == "en"
        let title = english ? "Plan dinner with \(initiator)" : "Plan mit \(initiator) das Essen"
        let body = english ? "What shall we cook on \(view.session.day)?" : "Was kochen wir am \(Self.germanDay(view.session.day))?"
        // The notification goes out whatever became of the start; a start that failed is tried
        // again with the job (the notification then stays one: its dedupe key).
        var startFailure: (any Error)?
        do {
            _ = try engine.startActivities(
                contextKey: view.session.contextKey(of: partner), userIDs: [partner], deviceIDs: [],
                alert: LiveActivityAlert(title: .plain(title), body: .plain(body)))
        } catch let error as EngineError where error.code == .contextEnded {
            // The partner's card ended meanwhile (they left, or the session ended): nothing to start.
        } catch {
            startFailure = error
        }
        _ = try engine.notify(
            userID: partner, title: title, body: body, link: "/cook-suggest/\(sessionID)", icon: "✨", dedupeKey: view.session.invitationKey)
        if let after = try domain.door.read({ read in try domain.view(sessionID, in: read.sql) }), after.session.state.isFinal {
            try engine.resolve(userID: partner, dedupeKey: view.session.invitationKey)
        }
        if let startFailure { throw startFailure }
    }

    /// `2026-06-18` as `18.06.2026`.
    static func germanDay(_ day: String) -> String {
        let parts = day.split(separator: "-")
        guard parts.count == 3 else { return day }
        return "\(parts[2]).\(parts[1]).\(parts[0])"
    }
}

/// The feature's periodic work (with the engine's sweep, every second): due jobs, then sessions
/// nobody took a step in for the TTL.
struct CookSuggestSweep: Sendable {
    let jobs: CookSuggestJobs

    func run(engine: Engine, now: Date) {
        jobs.runDue(engine: engine, now: now)
        do {
            try jobs.domain.expire(now: now)
        } catch {
            jobs.logger.warning(
                "cooksuggest.expiryFailed", [("message", .string("cancelling lapsed sessions failed (tried again on the next sweep): \(error)"))])
        }
    }
}
