import Foundation
import LivelineAPI
import LivelineEngine
import LivelineHTTP
import LivelineModel
import LivelineStore

/// The generic API for other backends, `/v1/contexts/…` (`docs/engine.md`, "Generic API"; admin key):
/// store a context's whole state (checked against its contract), read it with the `since_rev`
/// shortcut, end it, and see its timeline.
struct ContextHandlers: Sendable {
    let auth: Authenticator
    let engine: Engine
    let registry: ContractRegistry
    let clock: @Sendable () -> Date

    func addRoutes(to router: inout Router) {
        router.add(Routes.putContext) { request in
            try auth.requireAdmin(request)
            let key = try request.contextKey()
            let body = try request.decode(PutContextRequest.self, plain: PutContextRequest.init(plainBody:))
            if let priority = body.priority, priority != 5 && priority != 10 {
                throw HTTPError.badRequest("priority must be 10 (at once) or 5 (when the phone sees fit), not \(priority)", field: "priority")
            }
            if let score = body.relevanceScore { try ContextFields.relevanceScore.number(score) }
            let result = try engine.putContext(key: key, body)
            // `PutContextResponse`, written in one pass (the API's encoder costs more than the
            // rest of the answer on this, the busiest write path): the same sorted keys.
            let answer: JSONValue = .object(["key": .string(key), "rev": .int(result.rev), "created": .bool(result.created)])
            return .jsonBytes(Array(answer.compactJSON), status: result.created ? 201 : 200)
        }
        router.add(Routes.getContext) { request in
            try auth.requireAdmin(request)
            let key = try request.contextKey()
            let sinceRev = try CommonFields.sinceRev.integerQuery(of: request)
            guard let read = try engine.snapshot(key: key, sinceRev: sinceRev) else {
                throw HTTPError.notFound("there is no context \(key)")
            }
            return try .json(Self.response(read, engine: engine))
        }
        router.add(Routes.endContext) { request in
            try auth.requireAdmin(request)
            let key = try request.contextKey()
            let result = try engine.endContext(key: key)
            return try .json(EndContextResponse(key: key, rev: result.rev, alreadyEnded: result.alreadyEnded))
        }
        router.add(Routes.contextTimeline) { request in
            try auth.requireAdmin(request)
            let key = try request.contextKey()
            let limit = try ContextFields.timelineLimit.integerQuery(of: request) ?? 200
            guard let timeline = try engine.timeline(key: key, limit: limit) else {
                throw HTTPError.notFound("there is no context \(key)")
            }
            return try .json(
                ContextTimelineResponse(
                    key: key, sentRev: timeline.sentRev, acknowledged: timeline.acknowledged, entries: timeline.entries.map(Self.entry)
                ))
        }
        router.add(Routes.startContext) { request in
            try auth.requireAdmin(request)
            let key = try request.contextKey()
            let body = try request.decode(StartContextRequest.self)
            let userIDs = try (body.userIds ?? []).map { UserID(try CommonFields.userID.integer($0)) }
            let deviceIDs = try (body.deviceIds ?? []).map { try TokenFields.deviceID.named("deviceIds").text($0) }
            guard !userIDs.isEmpty || !deviceIDs.isEmpty else {
                throw HTTPError.badRequest("name whom to start it for: userIds and/or deviceIds", field: "userIds")
            }
            for (name, count) in [("userIds", userIDs.count), ("deviceIds", deviceIDs.count)] where count > ContextFields.startTargets.upperBound {
                throw HTTPError.badRequest("at most \(ContextFields.startTargets.upperBound) \(name) per call, not \(count)", field: name)
            }
            let at = try CommonFields.startTime(body.at)
            let result = try engine.startActivities(
                contextKey: key, userIDs: userIDs, deviceIDs: deviceIDs, alert: body.alert,
                includeDismissed: body.includeDismissed ?? false, useChannel: body.useChannel ?? false, at: at
            )
            return try .json(
                StartContextResponse(
                    key: key, channelId: result.channelID,
                    channelIds: result.channelIDs.isEmpty
                        ? nil : Dictionary(uniqueKeysWithValues: result.channelIDs.map { ($0.key.rawValue, $0.value) }),
                    channelFallback: result.channelFallback,
                    starts: result.outcomes.map {
                        .init(outcome: $0.kind.rawValue, deviceId: $0.deviceID, userId: $0.userID?.rawValue, reason: $0.reason)
                    }
                ))
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

    /// A start's state in the timeline: as stored, and whether its device answered, it went
    /// unanswered, it waits for its time or missed it (`docs/api.md`, "Scheduled starts").
    static func startStatus(_ start: StartRecord) -> String {
        if start.missedAt != nil { return "missed" }
        if start.suspectAt != nil { return "suspect (no update token followed)" }
        if start.updateTokenAt != nil { return "\(start.status.rawValue), update token received" }
        if start.status == .queued, let at = start.scheduledAt { return "scheduled for \(at.formatted(.iso8601))" }
        return start.status.rawValue
    }

    static func entry(_ entry: TimelineEntry) -> ContextTimelineResponse.Entry {
        switch entry {
        case .revision(let revision):
            return .init(kind: .revision, at: revision.changedAt, rev: revision.rev, note: revision.note)
        case .delivery(let attempt):
            return .init(
                kind: .delivery, at: attempt.attemptedAt, rev: attempt.rev, note: attempt.note, targetKind: attempt.targetKind.rawValue,
                target: attempt.target, status: attempt.status, reason: attempt.reason, apnsId: attempt.apnsID,
                priority: attempt.priority, latencyMs: attempt.latencyMilliseconds, environment: attempt.environment
            )
        case .deadLetter(let row):
            let target: (String, String)? =
                switch row.target {
                case .token(let id)?: ("token", String(id.rawValue))
                case .channel(let id)?: ("channel", id)
                case nil: nil
                }
            return .init(
                kind: .deadLetter, at: row.updatedAt, note: "\(row.kind.rawValue) row \(row.id)", targetKind: target?.0,
                target: target?.1, reason: row.lastError, attempts: row.attempts
            )
        case .start(let start):
            return .init(
                kind: .start, at: start.updatedAt, note: "start \(startStatus(start))", targetKind: "device", target: start.deviceID,
                reason: start.reason)
        case .receipt(let receipt):
            return .init(
                kind: .receipt, at: receipt.receivedAt, rev: receipt.rev, note: "rendered rev \(receipt.rev)", targetKind: "device",
                target: receipt.deviceID)
        case .renewal(let renewal):
            return .init(
                kind: .renewal, at: renewal.updatedAt, note: "renewal \(renewal.status.rawValue)", targetKind: "device", target: renewal.deviceID,
                reason: renewal.reason)
        case .activity(let report):
            return .init(kind: .activity, at: report.reportedAt, note: "activity \(report.summary)", targetKind: "device", target: report.deviceID)
        }
    }
}
