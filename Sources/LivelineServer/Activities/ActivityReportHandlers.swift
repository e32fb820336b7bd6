import Foundation
import LivelineEngine
import LivelineHTTP
import LivelineModel
import LivelineStore

/// What the app reports about its Live Activities (`engine.md`, "Lifecycle"): `POST
/// /api/la/dismissed` (the user swiped it away) and `POST /api/la/receipts` (the revision it
/// rendered). A context of another household is a 404, as if it did not exist.
struct ActivityReportHandlers: Sendable {
    let auth: Authenticator
    let engine: Engine
    let clock: @Sendable () -> Date

    func addRoutes(to router: inout Router) {
        router.add(Routes.activityDismissed) { request in
            let caller = try auth.caller(of: request)
            let body = try request.decode(DismissedReport.self)
            let context = try visibleContext(body.contextKey, to: caller)
            let ended = try engine.dismissed(contextKey: context.key, userID: caller.userID)
            return try .json(DismissedResponse(contextKey: context.key, endedTokens: ended))
        }
        router.add(Routes.activityReceipt) { request in
            let caller = try auth.caller(of: request)
            let body = try request.decode(ReceiptReport.self)
            let context = try visibleContext(body.contextKey, to: caller)
            guard (0...context.rev).contains(body.rev) else {
                throw HTTPError.badRequest("rev must be a revision of \(context.key): 0 to \(context.rev), not \(body.rev)", field: "rev")
            }
            let deviceID = try TokenRegistrationRules.deviceID(body.deviceID) ?? "session-\(caller.sessionID)"
            let recorded = try engine.store.reports.recordReceipt(
                contextKey: context.key, householdID: caller.householdID, deviceID: deviceID, userID: caller.userID, rev: body.rev, now: clock()
            )
            return try .json(ReceiptResponse(contextKey: context.key, deviceId: deviceID, rev: recorded))
        }
    }

    /// The context if the caller may see it: one of their household's, or a `/v1` context.
    func visibleContext(_ key: String, to caller: Caller) throws -> ContextRecord {
        guard !key.isEmpty, key.utf8.count <= ContextHandlers.maxKeyLength else {
            throw HTTPError.badRequest("context_key must be a context key of 1 to \(ContextHandlers.maxKeyLength) bytes", field: "context_key")
        }
        guard let context = try engine.store.contexts.context(key: key), context.householdID == nil || context.householdID == caller.householdID else {
            throw HTTPError.notFound("there is no context \(key)")
        }
        return context
    }
}
