import Foundation

/// One line of a context's timeline (`GET /v1/contexts/{key}/timeline`): revisions,
/// every delivery attempt, and dead letters, newest first.
public enum TimelineEntry: Sendable, Hashable {
    case revision(ContextRevision)
    case delivery(DeliveryAttempt)
    /// An outbox row of the context that went to the dead letters (at its `updatedAt`).
    case deadLetter(OutboxRow)
    /// A push-to-start on one device, as it stands (at its `updatedAt`).
    case start(StartRecord)
    /// The newest revision a device reported rendering.
    case receipt(Receipt)
    /// A card's renewal on one device, as it stands (at its `updatedAt`; `docs/engine.md`, "Renewal").
    case renewal(RenewalRecord)
    /// The app's own activity on one device as it last reported it (`pending`, `active`, `ended`;
    /// `transient`), at its `reportedAt`.
    case activity(ActivityReport)

    /// When it happened.
    public var date: Date {
        switch self {
        case .revision(let revision): revision.changedAt
        case .delivery(let attempt): attempt.attemptedAt
        case .deadLetter(let row): row.updatedAt
        case .start(let start): start.updatedAt
        case .receipt(let receipt): receipt.receivedAt
        case .renewal(let renewal): renewal.updatedAt
        case .activity(let report): report.reportedAt
        }
    }

    /// Orders entries of the same instant: a change comes before the attempts it caused, and
    /// those before a dead letter they caused.
    var rank: Int {
        switch self {
        case .revision: 0
        case .delivery: 1
        case .deadLetter: 2
        case .start: 1
        case .receipt: 3
        case .renewal: 1
        case .activity: 3
        }
    }

    /// The revision number or row id, the last tie-breaker.
    var sequence: Int {
        switch self {
        case .revision(let revision): revision.rev
        case .delivery(let attempt): attempt.id ?? 0
        case .deadLetter(let row): row.id
        case .start(let start): start.id
        case .receipt(let receipt): receipt.rev
        case .renewal(let renewal): renewal.id
        case .activity: 0
        }
    }
}
