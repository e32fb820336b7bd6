import Foundation
import LivelineAPI
import LivelineEngine
import LivelineHTTP
import LivelineModel
import LivelineStore

/// The app's side of its Live Activities (`docs/engine.md`, "Lifecycle", "Pull-reconcile";
/// `docs/sdk.md`): `GET /api/contexts/{key}?since_rev=N` (pull the truth), `POST
/// /api/la/dismissed` (the user swiped it away), `POST /api/la/receipts` (the revision it
/// rendered), `POST /api/la/activity` (the app's own activity: pending, active, ended; transient),
/// `GET`/`POST /api/la/preferences` (opt-in per type). A context of another
/// household — or a `/v1` context none of the household's devices follows — is a 404, as if it
/// did not exist.
struct ActivityReportHandlers: Sendable {
    let auth: Authenticator
    let engine: Engine
    let clock: @Sendable () -> Date

    func addRoutes(to router: inout Router) {
        router.add(Routes.pullContext) { request in
            let caller = try auth.caller(of: request)
            let context = try visibleContext(try request.contextKey(), to: caller)
            let sinceRev = try CommonFields.sinceRev.integerQuery(of: request)
            // Up to date (the usual push-woken pull): the row just read answers it.
            if sinceRev == context.rev {
                return try .json(
                    ContextHandlers.response(
                        .unchanged(key: context.key, activityType: context.activityType, state: context.state, rev: context.rev), engine: engine))
            }
            guard let read = try engine.snapshot(key: context.key, sinceRev: sinceRev) else {
                throw HTTPError.notFound("there is no context \(context.key)")
            }
            return try .json(ContextHandlers.response(read, engine: engine))
        }
        router.add(Routes.optIns) { request in
            let caller = try auth.caller(of: request)
            return try .json(OptInsResponse(preferences: try engine.optIns(userID: caller.userID)))
        }
        router.add(Routes.setOptIn) { request in
            let caller = try auth.caller(of: request)
            let body = try request.decode(OptInRequest.self)
            guard engine.contracts.contract(named: body.attributesType) != nil else {
                let known = engine.contracts.names.joined(separator: ", ")
                throw HTTPError.badRequest("attributes_type must be a known activity type (\(known))", field: "attributes_type")
            }
            try engine.setOptIn(userID: caller.userID, attributesType: body.attributesType, enabled: body.enabled)
            return try .json(OptInsResponse(preferences: try engine.optIns(userID: caller.userID)))
        }
        router.add(Routes.activityDismissed) { request in
            let caller = try auth.caller(of: request)
            let body = try request.decode(DismissedReport.self)
            let context = try visibleContext(body.contextKey, to: caller)
            let ended = try engine.dismissed(contextKey: context.key, userID: caller.userID)
            return try .json(DismissedResponse(contextKey: context.key, endedTokens: ended))
        }
        router.add(Routes.activityState) { request in
            let caller = try auth.caller(of: request)
            return try .json(try reportActivity(try request.decode(ActivityStateReport.self), caller: caller))
        }
        router.add(Routes.activityReceipt) { request in
            let caller = try auth.caller(of: request)
            let body = try request.decode(ReceiptReport.self)
            try ActivityReportFields.rev.integer(body.rev)
            let context = try visibleContext(body.contextKey, to: caller)
            guard (0...context.rev).contains(body.rev) else {
                // The context has no such revision yet: a conflict with its state, not a bad field.
                throw HTTPError(
                    status: 409, code: "conflict", message: "rev must be a revision of \(context.key): 0 to \(context.rev), not \(body.rev)",
                    field: "rev")
            }
            let deviceID = try TokenRegistrationRules.deviceID(body.deviceID) ?? "session-\(caller.sessionID)"
            let recorded = try engine.recordReceipt(
                contextKey: context.key, householdID: caller.householdID, deviceID: deviceID, userID: caller.userID, rev: body.rev
            )
            return try .json(ReceiptResponse(contextKey: context.key, deviceId: deviceID, rev: recorded))
        }
    }

    /// `POST /api/la/activity`: every field checked before anything is stored.
    func reportActivity(_ body: ActivityStateReport, caller: Caller) throws -> ActivityStateResponse {
        let state = ActivityReport.State(rawValue: try ActivityReportFields.state.text(body.state)) ?? .active
        let style = try body.style.map { ActivityReport.Style(rawValue: try ActivityReportFields.style.text($0)) ?? .standard } ?? .standard
        let now = clock()
        let startsAt = try ActivityReportFields.startsAt(body.startsAt, state: state, now: now)
        let deviceID = try TokenRegistrationRules.deviceID(body.deviceID) ?? "session-\(caller.sessionID)"
        let activityID = try body.activityID.map { try TokenFields.activityID.text($0) }
        let context = try visibleContext(body.contextKey, to: caller)
        if let type = body.attributesType, try ActivityReportFields.attributesType.text(type) != context.activityType {
            // Well-formed, but not this context's type: a conflict with its state, as a receipt's rev.
            throw HTTPError(
                status: 409, code: "conflict", message: "attributes_type must be \(context.activityType), the type of \(context.key)",
                field: "attributes_type")
        }
        let stored = try engine.reportActivity(
            ActivityReport(
                contextKey: context.key, householdID: caller.householdID, deviceID: deviceID, activityID: activityID ?? "", userID: caller.userID,
                state: state, style: style, startsAt: startsAt, reportedAt: now),
            styleGiven: body.style != nil)
        return ActivityStateResponse(
            contextKey: context.key, deviceId: deviceID, state: state.rawValue, style: stored.style.rawValue, startsAt: startsAt,
            activityId: activityID)
    }

    /// The context if the caller may see it: one of their household's, or a `/v1` context.
    func visibleContext(_ key: String, to caller: Caller) throws -> ContextRecord {
        try ActivityReportFields.contextKey.text(key)
        guard let context = try engine.context(key: key) else {
            throw HTTPError.notFound("there is no context \(key)")
        }
        let visible =
            if let householdID = context.householdID {
                householdID == caller.householdID
            } else {
                try engine.isFollowed(key: key, householdID: caller.householdID)
            }
        guard visible else { throw HTTPError.notFound("there is no context \(key)") }
        return context
    }
}
