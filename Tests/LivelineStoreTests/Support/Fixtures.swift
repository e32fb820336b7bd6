import Foundation
import LivelineModel
import LivelineStore

/// Times on whole milliseconds (the stored precision), so round trips compare equal.
func time(_ seconds: Int) -> Date {
    Date(timeIntervalSince1970: 1_750_000_000 + Double(seconds))
}

extension Store {
    /// A user in `household` with a session for `tokenHash` (distinct per call unless given).
    func makeUser(_ name: String, household: String = "Home", locale: String = "de", tokenHash: String? = nil) throws -> UserRecord {
        try accounts.createUser(
            household: household, name: name, avatarTint: "azure", emoji: "🙂", locale: locale,
            tokenHash: tokenHash ?? "hash-\(name)-\(household)", now: time(0)
        )
    }
}

extension TokenRegistration {
    /// An `alert` registration for `user` on `device`.
    static func alert(_ user: UserRecord, device: String, token: String, environment: PushEnvironment = .production) -> Self {
        TokenRegistration(
            householdID: user.householdID, userID: user.id, deviceID: device, kind: .alert, environment: environment,
            token: token
        )
    }
}

extension Store {
    /// A `/v1`-style context (no household) created at `time(seconds)`, at revision 0.
    @discardableResult
    func makeContext(_ key: String = "trip:1", type: String = "TransitActivityAttributes", at seconds: Int = 0) throws -> ContextRecord {
        try write { transaction in
            try contexts.create(
                key: key, activityType: type, householdID: nil, attributes: #"{"line":"5"}"#, contentState: nil,
                now: time(seconds), in: transaction
            )
        }
    }

    /// Records one change of `key` at `time(seconds)` in its own transaction; returns the new rev.
    @discardableResult
    func change(_ key: String = "trip:1", at seconds: Int, note: String? = nil) throws -> Int {
        try write { transaction in try contexts.recordChange(key: key, now: time(seconds), note: note, in: transaction) }
    }

    /// Ends `key` at `time(seconds)` in its own transaction (the store's part of an end).
    @discardableResult
    func end(_ key: String = "trip:1", at seconds: Int) throws -> ContextEndResult {
        try write { transaction in try contexts.end(key: key, now: time(seconds), in: transaction) }
    }

    /// The store's part of a `/v1` put, in one transaction: the context created when missing, a
    /// change recorded, the state stored as given and the hints set (the engine checks first).
    @discardableResult
    func put(
        _ key: String = "trip:1", type: String = "TransitActivityAttributes", state: String = "{}", alert: String? = nil,
        priority: Int? = nil, relevanceScore: Double? = nil, at seconds: Int
    ) throws -> ContextUpsertResult {
        try write { transaction in
            let created = try contexts.revision(key: key, in: transaction) == nil
            if created {
                try contexts.create(
                    key: key, activityType: type, householdID: nil, attributes: "{}", contentState: state, now: time(seconds), in: transaction
                )
            }
            let given = GivenState(
                activityType: type, attributes: "{}", contentState: state, relevanceScore: relevanceScore, alert: alert, priority: priority)
            guard
                let change = try contexts.recordGivenState(
                    given, key: key, now: time(seconds), note: created ? "created" : "updated", in: transaction)
            else { throw StoreError(.notFound, "no active /v1 context \(key) of type \(type)") }
            return ContextUpsertResult(rev: change.rev, created: created)
        }
    }

    /// The context's outbox rows of `kind` in `status`, oldest first.
    func outboxRows(_ key: String = "trip:1", kind: OutboxKind = .sync, status: OutboxStatus) throws -> [OutboxRow] {
        try outbox.rows(contextKey: key).filter { $0.kind == kind && $0.status == status }
    }
}
