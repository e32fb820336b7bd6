import Foundation
import LivelineModel
import LivelinePush
import LivelineStore

/// Renders a context's push at send time (`engine.md`: sync rows are rendered from the current
/// state, so ten quick changes become one push): the full content state from one write
/// transaction that also takes the next strictly increasing `aps.timestamp`, the targets (the
/// context's `la-update` tokens and its channel), and the `aps` envelope.
struct SyncRenderer: Sendable {
    let store: Store
    let configuration: EngineConfiguration
    let sources: [String: any SnapshotSource]
    let registry: ContractRegistry

    /// The context's full content state as of `transaction`: from its snapshot source (or as
    /// stored, for `/v1` contexts), with the contract's own `rev` and `ended` keys set to the
    /// engine's truth.
    func contentState(of context: ContextRecord, in transaction: any SQLTransaction) throws -> JSONValue {
        let source: any SnapshotSource = context.contentState != nil
            ? StoredSnapshotSource() : (sources[context.activityType] ?? StoredSnapshotSource())
        var state = try source.contentState(of: context, in: transaction)
        if let contract = registry.contract(named: context.activityType), case .object(var fields) = state {
            let keys = Set(contract.schema.contentState.map(\.key))
            if keys.contains("rev") { fields["rev"] = .int(context.rev) }
            if keys.contains("ended") { fields["ended"] = context.state == .ended ? .bool(true) : .null }
            state = .object(fields)
        }
        return state
    }

    /// The push for `row`, or nil when its context no longer exists.
    func render(_ row: OutboxRow, now: Date) throws -> RenderedSync? {
        guard let key = row.contextKey else { return nil }
        return try store.write { transaction -> RenderedSync? in
            guard let context = try store.contexts.context(key: key, in: transaction) else { return nil }
            let state = try contentState(of: context, in: transaction)
            let ended = context.state == .ended
            let timestamp = try store.contexts.nextPushTimestamp(key: key, now: now, in: transaction)
            if row.target == nil && configuration.minimumPushInterval > 0 {
                try store.contexts.holdNextPush(key: key, until: now.addingTimeInterval(configuration.minimumPushInterval), in: transaction)
            }
            var aps: [String: JSONValue] = [
                "timestamp": .int(timestamp), "event": .string(ended ? "end" : "update"), "content-state": state,
            ]
            if ended {
                aps["dismissal-date"] = .int(Int(now.addingTimeInterval(configuration.dismissAfter).timeIntervalSince1970))
            } else if let staleAfter = configuration.staleAfter {
                aps["stale-date"] = .int(Int(now.addingTimeInterval(staleAfter).timeIntervalSince1970))
            }
            if let score = context.relevanceScore { aps["relevance-score"] = .double(score) }
            // A `/v1` hint: the alert goes with the next push after it was set.
            var carriesHints = context.priorityHint != nil
            if let alert = context.alert, let value = try? JSONValue(json: Data(alert.utf8)) {
                aps["alert"] = value
                carriesHints = true
            }
            let priority = context.priorityHint.map(APNSPriority.init(rawValue:)) ?? .immediate
            let payload = Array(JSONValue.object(["aps": .object(aps)]).compactJSON)

            var tokens: [PushTokenRecord] = []
            var channel: String?
            switch row.target {
            case nil:
                tokens = try store.tokens.updateTokens(
                    contextKey: key, environment: configuration.environment, householdID: context.householdID, in: transaction
                )
                channel = context.channelID
            case .token(let id)?:
                tokens = try store.tokens.updateTokens(
                    contextKey: key, environment: configuration.environment, householdID: context.householdID, in: transaction
                ).filter { $0.id == id }
            case .channel(let id)?:
                channel = context.channelID == id ? id : nil
            }
            return RenderedSync(
                contextKey: key, rev: context.rev, event: ended ? "end" : "update", contractName: context.activityType,
                payload: payload, priority: priority, carriesHints: carriesHints, tokens: tokens, channelID: channel
            )
        }
    }
}
