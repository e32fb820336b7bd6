import Foundation
import LivelineModel
import LivelinePushWire
import LivelineStore

/// What a start request did on one device (or for one user without a start token).
public struct StartOutcome: Sendable, Hashable {
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A start push is on its way.
        case queued
        /// The device has (or is getting) this context's activity: nothing sent.
        case alreadyStarted
        /// The device's start budget is used up: nothing sent.
        case overBudget
        /// The user dismissed this context's activity: nothing sent unless asked to include them.
        case dismissed
        /// The user turned Live Activities of this type off in the app: nothing sent.
        case optedOut
        /// No push-to-start token for the context's type: nothing to send to.
        case noStartToken
    }

    public var deviceID: String?
    public var userID: UserID?
    public var kind: Kind
    public var reason: String?
}

/// The result of a start request.
public struct StartResult: Sendable, Hashable {
    /// The channel the activities follow (`input-push-channel`), when the context has one: its
    /// channel in the default environment, else in the other one.
    public var channelID: String?
    /// The context's channel in each environment that has one.
    public var channelIDs: [PushEnvironment: String] = [:]
    /// Why a channel was asked for and none is used.
    public var channelFallback: String?
    public var outcomes: [StartOutcome]
}

/// Push-to-start (`docs/engine.md`, "Lifecycle"; `docs/painpoints.md` §1, §6): one start per context and
/// device, whatever the number of calls; a start budget per device; never a start in place of
/// an update; dismissals honoured.
struct Starter: Sendable {
    let store: Store
    let renderer: SyncRenderer
    let channels: ChannelManager
    let configuration: EngineConfiguration

    func start(
        contextKey: String, userIDs: [UserID], deviceIDs: [String], alert: LiveActivityAlert, includeDismissed: Bool, useChannel: Bool,
        startsFollowChannel: Bool = true, at: Date? = nil, now: Date
    ) throws -> StartResult {
        if let at, let problem = configuration.scheduledStartProblem(at: at, now: now) { throw EngineError(.outOfRange, problem, field: "at") }
        guard let context = try store.contexts.context(key: contextKey) else {
            throw EngineError(.notFound, "there is no context \(contextKey)")
        }
        guard context.state == .active else {
            throw EngineError(.contextEnded, "the context \(contextKey) has ended; it cannot be started")
        }
        if let at, let problem = configuration.scheduledStartProblem(at: at, context: context) {
            throw EngineError(.outOfRange, problem, field: "at")
        }
        let fallback = useChannel ? try ensureChannels(of: context, userIDs, deviceIDs, now: now) : nil
        var result = try store.write { transaction -> StartResult in
            guard let context = try store.contexts.context(key: contextKey, in: transaction), context.state == .active else {
                throw EngineError(.contextEnded, "the context \(contextKey) has ended; it cannot be started")
            }
            let request = Request(
                context: context, userIDs: userIDs, deviceIDs: deviceIDs, alert: alert, startsFollowChannel: startsFollowChannel,
                scheduledAt: at.flatMap { $0 > now ? $0 : nil }, now: now)
            let planner = StartPlanner(
                contextKey: contextKey, activityType: context.activityType,
                showing: try store.tokens.devicesShowing(contextKey: contextKey, since: context.startedAt, in: transaction),
                optedOut: try store.reports.optedOutUsers(attributesType: context.activityType, in: transaction),
                dismissed: try store.reports.dismissedUsers(contextKey: contextKey, in: transaction), includeDismissed: includeDismissed)
            return try startDevices(request, planner: planner, in: transaction)
        }
        result.channelFallback = fallback
        return result
    }

    /// One start request, as the write transaction sees it.
    struct Request {
        let context: ContextRecord
        let userIDs: [UserID]
        let deviceIDs: [String]
        let alert: LiveActivityAlert
        let startsFollowChannel: Bool
        /// When the starts go out (`docs/api.md`, "Scheduled starts"); nil: at once.
        let scheduledAt: Date?
        let now: Date
        /// When the start push leaves: its stale date and expiration count from then.
        var sendAt: Date { scheduledAt ?? now }
    }

    /// A channel in the default environment, and in the other one when devices to start are there
    /// (made now where there is none); why one could not be made, if so.
    private func ensureChannels(of context: ContextRecord, _ userIDs: [UserID], _ deviceIDs: [String], now: Date) throws -> String? {
        let tokens = try store.database.read { transaction in try startTokens(of: context, userIDs, deviceIDs, in: transaction) }
        let environments = Set(tokens.map(\.environment)).union([configuration.environment])
        var fallbacks: [String] = []
        for environment in configuration.environments where environments.contains(environment) {
            if let fallback = try channels.ensureChannel(contextKey: context.key, environment: environment, now: now).fallback {
                fallbacks.append(fallback)
            }
        }
        return fallbacks.isEmpty ? nil : fallbacks.joined(separator: "; ")
    }

    /// Applies the planner's step on each device of the request: skips recorded, starts reserved
    /// and their pushes queued, in the caller's transaction.
    private func startDevices(_ request: Request, planner: StartPlanner, in transaction: any SQLTransaction) throws -> StartResult {
        let context = request.context
        let now = request.now
        let linked = try store.channels.contextChannels(key: context.key, in: transaction)
        let tokens = try startTokens(of: context, request.userIDs, request.deviceIDs, in: transaction)
        // Each device follows its own environment's channel, or gets an update token where there
        // is none — or where its environment is a guess the other environment may still
        // overturn (it would move there, where this channel is not).
        func channel(for token: PushTokenRecord) -> String? {
            request.startsFollowChannel && configuration.fallbackEnvironment(of: token) == nil ? linked[token.environment] : nil
        }
        var payloads: [String: [UInt8]] = [:]
        var outcomes: [StartOutcome] = []
        for token in tokens {
            switch planner.step(householdID: token.householdID, deviceID: token.deviceID, userID: token.userID) {
            case .showing(let outcome):
                outcomes.append(outcome)
            case .skip(let outcome):
                try store.starts.recordSkipped(
                    contextKey: context.key, householdID: token.householdID, deviceID: token.deviceID, userID: token.userID,
                    tokenID: token.id, reason: outcome.reason ?? outcome.kind.rawValue, now: now, in: transaction)
                outcomes.append(outcome)
            case .reserve:
                let reservation = try store.starts.reserve(
                    contextKey: context.key, householdID: token.householdID, deviceID: token.deviceID, userID: token.userID,
                    tokenID: token.id, viaChannel: channel(for: token) != nil, scheduledAt: request.scheduledAt, now: now,
                    budget: (configuration.startBudget, configuration.startBudgetWindow), in: transaction)
                if case .reserved(let startID) = reservation {
                    let channelID = channel(for: token)
                    if payloads[channelID ?? ""] == nil {
                        payloads[channelID ?? ""] = try startPayload(context, channelID: channelID, request: request, in: transaction)
                    }
                    try enqueueStart(
                        context, token: token, startID: startID, payload: payloads[channelID ?? ""] ?? [], request: request, in: transaction)
                }
                outcomes.append(StartPlanner.outcome(of: reservation, deviceID: token.deviceID, userID: token.userID))
            }
        }
        outcomes += planner.unreached(
            userIDs: request.userIDs, deviceIDs: request.deviceIDs, reachedUsers: Set(tokens.map(\.userID)),
            reachedDevices: Set(tokens.map(\.deviceID)), environments: configuration.environments)
        let first = configuration.environments.lazy.compactMap { linked[$0] }.first
        return StartResult(channelID: first, channelIDs: linked, channelFallback: nil, outcomes: outcomes)
    }

    /// Queues the start push of a reserved start to `token`, due when the request's start goes out.
    func enqueueStart(
        _ context: ContextRecord, token: PushTokenRecord, startID: Int, payload: [UInt8], request: Request, in transaction: any SQLTransaction
    ) throws {
        let now = request.now
        let message = OutboxMessage.start(
            tokenID: token.id, startID: startID, rev: context.rev,
            push: OutboxMessage.Push(
                pushType: .liveActivity, priority: .immediate, expiration: Int(request.sendAt.timeIntervalSince1970) + 600,
                collapseID: String("start:\(context.key)".utf8.prefix(64)) ?? "start"
            ),
            note: "start rev \(context.rev) on device \(token.deviceID)"
        )
        try store.outbox.enqueueMessage(
            idempotencyKey: "start:\(context.key):\(token.householdID):\(token.deviceID):\(startID):\(Int(now.timeIntervalSince1970 * 1000))",
            contextKey: context.key, target: .token(token.id), headers: message.json, payload: payload, now: now, dueAt: request.scheduledAt,
            in: transaction)
    }

    /// The push-to-start tokens of the users and devices to start, in every environment pushed
    /// to (of the context's household only, when it has one).
    private func startTokens(
        of context: ContextRecord, _ userIDs: [UserID], _ deviceIDs: [String], in transaction: any SQLTransaction
    ) throws -> [PushTokenRecord] {
        let tokens = try configuration.environments.flatMap { environment in
            try store.tokens.startTokens(
                attributesType: context.activityType, environment: environment, userIDs: userIDs, deviceIDs: deviceIDs, in: transaction)
        }
        guard let householdID = context.householdID else { return tokens }
        return tokens.filter { $0.householdID == householdID }
    }

    /// The start push (`docs/apns.md`): `event: start`, the attributes type and attributes, the first
    /// content state, an alert with a title, and `input-push-token: 1` — or `input-push-channel`
    /// when the context has a channel, so updates reach it without a per-activity token. A
    /// scheduled start carries the state as of the request (the update token it brings back
    /// catches up at once) and its stale date counts from when it goes out.
    func startPayload(_ context: ContextRecord, channelID: String?, request: Request, in transaction: any SQLTransaction) throws -> [UInt8] {
        let now = request.now
        let alert = request.alert
        let state = try renderer.contentState(of: context, in: transaction)
        let attributes = try JSONValue(json: Data(context.attributes.utf8))
        let alertJSON = try JSONValue(json: JSONEncoder().encode(alert))
        // An update's keys (stale date, relevance score, the alert), made a start.
        guard
            case .object(var aps) = renderer.updateAPS(
                type: context.activityType, state: state,
                timestamp: try store.contexts.nextPushTimestamp(key: context.key, now: now, in: transaction),
                ended: false, alert: alertJSON, relevanceScore: context.relevanceScore, now: request.sendAt
            )
        else { throw EngineError("the start of \(context.key) has no aps object") }
        aps["event"] = "start"
        aps["attributes-type"] = .string(context.activityType)
        aps["attributes"] = attributes
        if let channelID { aps["input-push-channel"] = .string(channelID) } else { aps["input-push-token"] = 1 }
        let payload = JSONValue.object(["aps": .object(aps)]).compactJSON
        let report = PayloadCheck(destination: .device, now: request.sendAt, registry: renderer.registry).check(
            json: payload, typeName: context.activityType)
        guard report.isAccepted else {
            throw EngineError.payloadRefused("the start of \(context.key)", report)
        }
        return Array(payload)
    }
}
