import Foundation
import LivelineEngine
import LivelineHTTP
import LivelineModel
import LivelineStore

/// The generic API for other backends, `/v1/contexts/…` (`engine.md`, "Generic API"; admin key):
/// store a context's whole state (checked against its contract), read it with the `since_rev`
/// shortcut, end it, and see its timeline.
struct ContextHandlers: Sendable {
    let auth: Authenticator
    let engine: Engine
    let registry: ContractRegistry
    let clock: @Sendable () -> Date

    /// Longest context key accepted, in bytes.
    static let maxKeyLength = 200

    func addRoutes(to router: inout Router) {
        router.add(Routes.putContext) { request in
            try auth.requireAdmin(request)
            let key = try Self.key(of: request)
            let body = try request.decode(PutContextRequest.self)
            let now = clock()
            let stored = try checked(body, now: now)
            let result = try Self.mapping {
                try engine.store.contexts.upsert(
                    key: key, activityType: body.type, attributes: stored.attributes, contentState: stored.contentState,
                    alert: stored.alert, priorityHint: body.priority, relevanceScore: body.relevanceScore, now: now
                )
            }
            return try .json(PutContextResponse(key: key, rev: result.rev, created: result.created), status: result.created ? 201 : 200)
        }
        router.add(Routes.getContext) { request in
            try auth.requireAdmin(request)
            let key = try Self.key(of: request)
            let sinceRev = try Self.integer(request, "since_rev", in: 0...Int(Int32.max))
            guard let read = try engine.snapshot(key: key, sinceRev: sinceRev) else {
                throw HTTPError.notFound("there is no context \(key)")
            }
            return try .json(Self.response(read, engine: engine))
        }
        router.add(Routes.endContext) { request in
            try auth.requireAdmin(request)
            let key = try Self.key(of: request)
            let result = try Self.mapping { try engine.store.contexts.end(key: key, now: clock()) }
            return try .json(EndContextResponse(key: key, rev: result.rev, alreadyEnded: result.alreadyEnded))
        }
        router.add(Routes.contextTimeline) { request in
            try auth.requireAdmin(request)
            let key = try Self.key(of: request)
            let limit = try Self.integer(request, "limit", in: 1...1000) ?? 200
            guard try engine.store.contexts.revision(key: key) != nil else {
                throw HTTPError.notFound("there is no context \(key)")
            }
            let entries = try engine.store.contexts.timeline(key: key, limit: limit).map(Self.entry)
            let acknowledged = Dictionary(
                try engine.store.reports.receipts(contextKey: key).map { ($0.deviceID, $0.rev) }, uniquingKeysWith: max
            )
            return try .json(ContextTimelineResponse(
                key: key, sentRev: try engine.store.deliveries.lastDeliveredRev(contextKey: key), acknowledged: acknowledged, entries: entries
            ))
        }
        router.add(Routes.startContext) { request in
            try auth.requireAdmin(request)
            let key = try Self.key(of: request)
            let body = try request.decode(StartContextRequest.self)
            let userIDs = body.userIds ?? []
            let deviceIDs = body.deviceIds ?? []
            guard !userIDs.isEmpty || !deviceIDs.isEmpty else {
                throw HTTPError.badRequest("name whom to start it for: userIds and/or deviceIds", field: "userIds")
            }
            guard userIDs.count + deviceIDs.count <= 1000 else {
                throw HTTPError.badRequest("at most 1000 users and devices per call", field: "userIds")
            }
            let result: StartResult
            do {
                result = try Self.mapping {
                    try engine.startActivities(
                        contextKey: key, userIDs: userIDs, deviceIDs: deviceIDs, alert: body.alert,
                        includeDismissed: body.includeDismissed ?? false, useChannel: body.useChannel ?? false
                    )
                }
            } catch let error as EngineError {
                throw HTTPError.contractViolation(error.message, field: "alert")
            }
            return try .json(StartContextResponse(
                key: key, channelId: result.channelID, channelFallback: result.channelFallback,
                starts: result.outcomes.map { .init(outcome: $0.kind.rawValue, deviceId: $0.deviceID, userId: $0.userID, reason: $0.reason) }
            ))
        }
    }

    // MARK: Checking the body

    struct StoredBody {
        let attributes: String
        let contentState: String
        let alert: String?
    }

    /// Refuses, with a 400 or a 422 naming the field, what the phone could not use; returns the
    /// JSON to store.
    func checked(_ body: PutContextRequest, now: Date) throws -> StoredBody {
        guard registry.contract(named: body.type) != nil else {
            let problem = registry.checkContentState(json: Data("{}".utf8), typeName: body.type, now: now).first
            throw HTTPError.contractViolation(problem?.message ?? "'\(body.type)' is not a known contract type", field: "type")
        }
        if let priority = body.priority, priority != 5 && priority != 10 {
            throw HTTPError.badRequest("priority must be 10 (at once) or 5 (when the phone sees fit), not \(priority)", field: "priority")
        }
        if let score = body.relevanceScore, !score.isFinite || score < 0 {
            throw HTTPError.badRequest("relevanceScore must be a number of 0 or more", field: "relevanceScore")
        }
        let attributes = body.attributes ?? .object([:])
        let attributesJSON = attributes.compactJSON
        try Self.refuse(registry.checkAttributes(json: attributesJSON, typeName: body.type, now: now), in: "attributes")
        let stateJSON = body.contentState.compactJSON
        // The engine sets the contract's `rev` itself when it renders; the caller need not send one.
        var state = body.contentState
        if let contract = registry.contract(named: body.type), contract.schema.contentState.contains(where: { $0.key == "rev" }),
            case .object(var fields) = state, fields["rev"] == nil {
            fields["rev"] = .int(0)
            state = .object(fields)
        }
        let alertJSON = try body.alert.map { try JSONValue(json: try APICoding.makeEncoder().encode($0)) }
        // The whole push as the dispatcher will render it must pass (the contract, size, dates, alert).
        let report = engine.checkUpdate(type: body.type, contentState: state, alert: alertJSON, relevanceScore: body.relevanceScore)
        try Self.refuse(report.errors.map { problem in
            var problem = problem
            for (prefix, field) in [("aps.content-state", "contentState"), ("aps.alert", "alert"), ("aps.relevance-score", "relevanceScore")]
            where problem.keyPath.hasPrefix(prefix) {
                problem.keyPath = field + problem.keyPath.dropFirst(prefix.count)
            }
            return problem
        }, in: "")
        let alert = alertJSON.map { String(decoding: $0.compactJSON, as: UTF8.self) }
        return StoredBody(
            attributes: String(decoding: attributesJSON, as: UTF8.self), contentState: String(decoding: stateJSON, as: UTF8.self),
            alert: alert
        )
    }

    /// A 422 for the first error among `problems`, its field prefixed with `section`.
    static func refuse(_ problems: [PayloadProblem], in section: String) throws {
        let errors = problems.filter { $0.severity == .error }
        guard let first = errors.first else { return }
        let field = section.isEmpty ? (first.keyPath.isEmpty ? "body" : first.keyPath)
            : first.keyPath.isEmpty ? section : "\(section).\(first.keyPath)"
        var message = "\(field): \(first.message)"
        if errors.count > 1 { message += " (and \(errors.count - 1) more: \(errors.dropFirst().prefix(3).map { $0.keyPath }.joined(separator: ", ")))" }
        throw HTTPError.contractViolation(message, field: field)
    }

    // MARK: Helpers

    /// The `{key}` parameter: 1 to 200 bytes of letters, digits and `.` `_` `-` `:` `@`.
    static func key(of request: HTTPRequest) throws -> String {
        let key = try request.parameter("key")
        let allowed = key.utf8.allSatisfy { byte in
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "-"), UInt8(ascii: ":"), UInt8(ascii: "@"):
                true
            default:
                false
            }
        }
        guard allowed, (1...maxKeyLength).contains(key.utf8.count) else {
            throw HTTPError.badRequest(
                "the context key must be 1 to \(maxKeyLength) letters, digits or . _ - : @ (e.g. trip:42)", field: "key"
            )
        }
        return key
    }

    /// An optional whole-number query parameter within `range`.
    static func integer(_ request: HTTPRequest, _ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let text = request.query[name] else { return nil }
        guard let value = Int(text), range.contains(value) else {
            throw HTTPError.badRequest("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'", field: name)
        }
        return value
    }

    /// Runs a store call, turning its refusals into the API's errors.
    static func mapping<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as StoreError {
            switch error.code {
            case .notFound: throw HTTPError.notFound(error.message)
            case .activityTypeChanged, .contextEnded, .conflict: throw HTTPError.conflict(error.message)
            default: throw error
            }
        }
    }

    static func response(_ read: ContextSnapshotRead, engine: Engine) throws -> ContextSnapshotResponse {
        switch read {
        case .unchanged(let key, let activityType, let state, let rev):
            return ContextSnapshotResponse(key: key, type: activityType, state: lifecycle(state), rev: rev, unchanged: true)
        case .changed(let context, let contentState):
            return ContextSnapshotResponse(
                key: context.key, type: context.activityType, state: lifecycle(context.state), rev: context.rev, unchanged: false,
                attributes: try JSONValue(json: Data(context.attributes.utf8)), contentState: contentState,
                startedAt: context.startedAt, deadlineAt: context.deadlineAt, endedAt: context.endedAt,
                dismissalAt: context.endedAt.map { engine.configuration.dismissalDate(type: context.activityType, endedAt: $0) }
            )
        }
    }

    static func lifecycle(_ state: ContextState) -> ContextLifecycle {
        switch state {
        case .active: .active
        case .ended: .ended
        }
    }

    static func entry(_ entry: TimelineEntry) -> ContextTimelineResponse.Entry {
        switch entry {
        case .revision(let revision):
            return .init(kind: .revision, at: revision.changedAt, rev: revision.rev, note: revision.note)
        case .delivery(let attempt):
            return .init(
                kind: .delivery, at: attempt.attemptedAt, rev: attempt.rev, note: attempt.note, targetKind: attempt.targetKind.rawValue,
                target: attempt.target, status: attempt.status, reason: attempt.reason, apnsId: attempt.apnsID,
                priority: attempt.priority, latencyMs: attempt.latencyMilliseconds
            )
        case .deadLetter(let row):
            let target: (String, String)? = switch row.target {
            case .token(let id)?: ("token", String(id))
            case .channel(let id)?: ("channel", id)
            case nil: nil
            }
            return .init(
                kind: .deadLetter, at: row.updatedAt, note: "\(row.kind.rawValue) row \(row.id)", targetKind: target?.0,
                target: target?.1, reason: row.lastError, attempts: row.attempts
            )
        case .start(let start):
            let status = start.suspectAt != nil ? "suspect (no update token followed)"
                : start.updateTokenAt != nil ? "\(start.status.rawValue), update token received" : start.status.rawValue
            return .init(
                kind: .start, at: start.updatedAt, note: "start \(status)", targetKind: "device", target: start.deviceID, reason: start.reason
            )
        case .receipt(let receipt):
            return .init(kind: .receipt, at: receipt.receivedAt, rev: receipt.rev, note: "rendered rev \(receipt.rev)", targetKind: "device", target: receipt.deviceID)
        }
    }
}
