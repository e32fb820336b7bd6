import Foundation
import LivelineModel
import LivelinePushWire
import LivelineStore

/// Renders a context's push at send time (`docs/engine.md`: sync rows are rendered from the current
/// state, so ten quick changes become one push): the full content state from one write
/// transaction that also takes the next strictly increasing `aps.timestamp`, the targets (the
/// context's `la-update` tokens and its channel), the `aps` envelope, and each target's priority
/// (`docs/engine.md`, "Budgets and priority"): material changes at 10 while the activity's hourly
/// ledger allows, quiet ones at 5 and debounced.
struct SyncRenderer: Sendable {
    let store: Store
    let configuration: EngineConfiguration
    let sources: [String: any SnapshotSource]
    let registry: ContractRegistry
    var planner: SyncPlanner { SyncPlanner(configuration: configuration) }

    /// The `aps` of an update or end push of `type` (`docs/apns.md`): the per-type stale date on
    /// updates, the per-type dismissal date on the end (counted from now, so an end that goes out
    /// late, after retries, still shows its final state that long); an alert and relevance score
    /// when set.
    func updateAPS(
        type: String, state: JSONValue, timestamp: Int, ended: Bool, alert: JSONValue?, relevanceScore: Double?, now: Date,
        endedAt: Date? = nil
    ) -> JSONValue {
        var aps: [String: JSONValue] = ["timestamp": .int(timestamp), "event": .string(ended ? "end" : "update"), "content-state": state]
        if ended {
            // From now, unless the type counts from its end (``EngineConfiguration/typesDismissedFromTheirEnd``).
            let from = configuration.typesDismissedFromTheirEnd.contains(type) ? min(endedAt ?? now, now) : now
            aps["dismissal-date"] = .int(Int(configuration.dismissalDate(type: type, endedAt: from).timeIntervalSince1970))
        } else if let staleAfter = configuration.staleAfter(type: type) {
            // At most the longest an activity lives; a contract file is checked for it too.
            let stale = now.addingTimeInterval(min(staleAfter, ContractLifecycle.maximumStaleAfter))
            aps["stale-date"] = .int(Int(stale.timeIntervalSince1970))
        }
        if let relevanceScore { aps["relevance-score"] = .double(relevanceScore) }
        if let alert { aps["alert"] = alert }
        return .object(aps)
    }

    /// The context's full content state as of `transaction`: from its snapshot source (or as
    /// stored, for `/v1` contexts), with the contract's own `rev` and `ended` keys set to the
    /// engine's truth.
    func contentState(of context: ContextRecord, in transaction: any SQLTransaction) throws -> JSONValue {
        let source: any SnapshotSource =
            context.contentState != nil
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

    /// What to do with sync `row` now: read the context (held), decide (``SyncPlanner``), and
    /// render the push it decided on.
    func render(_ row: OutboxRow, now: Date) throws -> RenderOutcome {
        guard let key = row.contextKey else { return .nothing }
        // A fan-out of an active context nobody follows never gets here: the claim completed it
        // (``OutboxRepository/claimForSending(owner:now:lease:limit:reclaiming:)``).
        return try store.write { transaction -> RenderOutcome in
            // Held first: on PostgreSQL (read committed) the context, its state and the next push
            // timestamp are then of one commit, not of changes committing in between.
            guard try store.contexts.lock(key: key, in: transaction) != nil,
                let context = try store.contexts.context(key: key, in: transaction)
            else { return .nothing }
            let state = try contentState(of: context, in: transaction)
            let stateJSON = state.compactJSON
            let facts = SyncPlanner.Facts(context: context, fanOut: row.target == nil)
            let material = planner.changeMaterial(facts) {
                registry.materialChange(typeName: context.activityType, old: context.lastSentState.map { Data($0.utf8) }, new: stateJSON)
            }
            if let until = planner.debounce(facts, changeMaterial: material, now: now) {
                return .postpone(until: until, reason: planner.debounceReason)
            }
            let rendered = Rendered(context: context, state: state, stateJSON: stateJSON, facts: facts, material: material)
            return .send(try send(rendered, row: row, now: now, in: transaction))
        }
    }

    /// A context read for a sync, with the planner's verdict on its change.
    private struct Rendered {
        let context: ContextRecord
        let state: JSONValue
        let stateJSON: Data
        let facts: SyncPlanner.Facts
        /// Why the change matters, nil when it is quiet.
        let material: String?
    }

    /// The push of a sync that goes now: its timestamp taken (and the context's next push held
    /// back), its payload, and its targets with their priorities.
    private func send(_ rendered: Rendered, row: OutboxRow, now: Date, in transaction: any SQLTransaction) throws -> RenderedSync {
        let context = rendered.context
        let key = context.key
        let fanOut = rendered.facts.fanOut
        let timestamp = try store.contexts.nextPushTimestamp(key: key, now: now, in: transaction)
        if fanOut && configuration.minimumPushInterval > 0 {
            try store.contexts.holdNextPush(key: key, until: now.addingTimeInterval(configuration.minimumPushInterval), in: transaction)
        }
        let (alert, unreadableAlert) = Self.alert(of: context)
        let aps = updateAPS(
            type: context.activityType, state: rendered.state, timestamp: timestamp, ended: context.state == .ended, alert: alert,
            relevanceScore: context.relevanceScore, now: now, endedAt: context.endedAt)
        let payload = Array(JSONValue.object(["aps": aps]).compactJSON)
        // The budget's ledger counts the priority-10 pushes APNs accepted in the last hour.
        let hourAgo = now.addingTimeInterval(-3600)
        let (tokens, channels) = try targets(of: row, context: context, ledgerSince: hourAgo, in: transaction)
        // A one-target row (a retry, a new token catching up) is material when that target has
        // not got this revision yet.
        var material = rendered.material
        if material == nil, let target = row.target, planner.asksTargetRevision(rendered.facts) {
            material = SyncPlanner.targetMaterial(
                receivedRev: try store.deliveries.lastDeliveredRev(contextKey: key, target: target, in: transaction), contextRev: context.rev)
        }
        var priorities = planner.priorities(rendered.facts, material: material)
        let pushes =
            try broadcasts(channels, key: key, ledgerSince: hourAgo, priorities: &priorities, in: transaction)
            + tokens.map { priorities.plan(.token($0.id), token: $0) }
        // A whole fan-out's tokens: read once this transaction committed, in pages, each sent as
        // it is read (``TokenPages``).
        let tokenPages =
            fanOut
            ? TokenPages(
                contextKey: key, householdID: context.householdID, ledgerSince: rendered.material == nil ? nil : hourAgo,
                environments: configuration.environments, priorities: priorities)
            : nil
        return RenderedSync(
            contextKey: key, rev: context.rev, contractName: context.activityType, payload: payload,
            carriesHints: context.priorityHint != nil || context.alert != nil, sentAlert: alert == nil ? nil : context.alert,
            pushes: pushes, tokenPages: tokenPages,
            // Once the final push reached one of the context's channels, that channel is deleted.
            channelsToRetire: context.state == .ended ? channels.map(\.channelID) : [],
            sentState: fanOut ? String(decoding: rendered.stateJSON, as: UTF8.self) : nil, renderedAt: now, unreadableAlert: unreadableAlert)
    }

    /// The context's pending alert; one that cannot be read (a damaged row: it was checked when
    /// stored) is left out, with the line that says so.
    static func alert(of context: ContextRecord) -> (alert: JSONValue?, unreadable: String?) {
        guard let stored = context.alert else { return (nil, nil) }
        do {
            return (try JSONValue(json: Data(stored.utf8)), nil)
        } catch {
            return (nil, "the pending alert of \(context.key) could not be read (\(error)); the update goes without it")
        }
    }

    /// The row's targets read now: a one-token row's token (with its ledger count), and the
    /// context's channels in each environment pushed to, the default one's first (all of them
    /// for a whole fan-out, whose tokens are read in pages later).
    private func targets(
        of row: OutboxRow, context: ContextRecord, ledgerSince: Date, in transaction: any SQLTransaction
    ) throws -> (tokens: [UpdateTarget], channels: [(environment: PushEnvironment, channelID: String)]) {
        let linked = try store.channels.contextChannels(key: context.key, in: transaction)
        let contextChannels = configuration.environments.compactMap { environment in
            linked[environment].map { (environment: environment, channelID: $0) }
        }
        switch row.target {
        case nil:
            return ([], contextChannels)
        case .token(let id)?:
            let tokens = try configuration.environments.flatMap { environment in
                try store.tokens.updateTargets(
                    contextKey: context.key, environment: environment, householdID: context.householdID, onlyID: id, ledgerSince: ledgerSince,
                    in: transaction)
            }
            return (tokens, [])
        case .channel(let id)?:
            return ([], contextChannels.filter { $0.channelID == id })
        }
    }

    /// The pushes to `channels`, each at the priority the channels' own ledger allows.
    private func broadcasts(
        _ channels: [(environment: PushEnvironment, channelID: String)], key: String, ledgerSince: Date, priorities: inout PushPriorities,
        in transaction: any SQLTransaction
    ) throws -> [PlannedPush] {
        guard !channels.isEmpty else { return [] }
        let ledger = try store.deliveries.priorityLedger(contextKey: key, since: ledgerSince, channelsOnly: true, in: transaction)
        return try channels.map { environment, channelID in
            var broadcast = priorities.plan(.channel(channelID), token: nil, used: ledger[.channel(channelID)] ?? 0)
            broadcast.channelEnvironment = environment
            broadcast.storesMessages =
                try store.channels.channel(id: channelID, in: transaction)?.storagePolicy
                == APNSChannelStoragePolicy.mostRecentMessageStored.rawValue
            return broadcast
        }
    }

    /// The next page of at most `size` (at least 1) of a whole fan-out's tokens, planned, read in a
    /// transaction of its own; nil once every environment's tokens were read.
    func nextPage(of pages: inout TokenPages, size: Int) throws -> [PlannedPush]? {
        let size = max(1, size)
        while let environment = pages.environments.first {
            let page = try store.database.read { transaction in
                try store.tokens.updateTargets(
                    contextKey: pages.contextKey, environment: environment, householdID: pages.householdID, ledgerSince: pages.ledgerSince,
                    after: pages.after, limit: size, in: transaction)
            }
            if page.count < size {
                pages.environments.removeFirst()
                pages.after = nil
            } else {
                pages.after = page.last?.id
            }
            if !page.isEmpty { return page.map { pages.priorities.plan(.token($0.id), token: $0) } }
        }
        return nil
    }
}
