import Foundation
import LivelineModel
import LivelinePush
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
            aps["stale-date"] = .int(Int(now.addingTimeInterval(staleAfter).timeIntervalSince1970))
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

    /// What to do with sync `row` now.
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
            let ended = context.state == .ended
            let fanOut = row.target == nil

            // Why this change matters, if it does.
            let changeMaterial: String? =
                if ended {
                    "the end"
                } else if context.alert != nil {
                    "an alert"
                } else if context.priorityHint == 10 {
                    "asked for priority 10"
                } else if context.priorityHint == 5 {
                    nil
                } else {
                    registry.materialChange(typeName: context.activityType, old: context.lastSentState.map { Data($0.utf8) }, new: stateJSON)
                }
            // A quiet change waits for the debounce (only this row: a material change or the end
            // arriving meanwhile pulls it forward); one the caller asked to go at 5 goes now, at 5.
            if fanOut, changeMaterial == nil, context.priorityHint == nil, let lastSent = context.lastSentAt,
                now < lastSent.addingTimeInterval(configuration.quietChangeDebounce)
            {
                let until = lastSent.addingTimeInterval(configuration.quietChangeDebounce)
                return .postpone(
                    until: until, reason: "quiet change (not material): waits for the \(Int(configuration.quietChangeDebounce)) s debounce")
            }

            let timestamp = try store.contexts.nextPushTimestamp(key: key, now: now, in: transaction)
            if fanOut && configuration.minimumPushInterval > 0 {
                try store.contexts.holdNextPush(key: key, until: now.addingTimeInterval(configuration.minimumPushInterval), in: transaction)
            }
            let carriesHints = context.priorityHint != nil || context.alert != nil
            // The alert was checked when it was stored; one that cannot be read (a damaged row)
            // is left out and logged, and the update goes without it.
            var alert: JSONValue?
            var unreadableAlert: String?
            if let stored = context.alert {
                do {
                    alert = try JSONValue(json: Data(stored.utf8))
                } catch {
                    unreadableAlert = "the pending alert of \(key) could not be read (\(error)); the update goes without it"
                }
            }
            let aps = updateAPS(
                type: context.activityType, state: state, timestamp: timestamp, ended: ended, alert: alert,
                relevanceScore: context.relevanceScore, now: now, endedAt: context.endedAt
            )
            let payload = Array(JSONValue.object(["aps": aps]).compactJSON)

            // The context's channel in each environment pushed to, the default one's first.
            let linked = try store.channels.contextChannels(key: key, in: transaction)
            let contextChannels = configuration.environments.compactMap { environment in
                linked[environment].map { (environment: environment, channelID: $0) }
            }
            // The budget's ledger counts the priority-10 pushes APNs accepted in the last hour: a
            // token's count comes with the token, the channels' from a ledger of their own. A
            // whole fan-out that is not material goes at 5 to everyone: no counts.
            let hourAgo = now.addingTimeInterval(-3600)
            var tokens: [UpdateTarget] = []
            var channels: [(environment: PushEnvironment, channelID: String)] = []
            switch row.target {
            case nil:
                // The tokens are read once this transaction committed (``TokenPages``).
                channels = contextChannels
            case .token(let id)?:
                for environment in configuration.environments {
                    tokens += try store.tokens.updateTargets(
                        contextKey: key, environment: environment, householdID: context.householdID, onlyID: id, ledgerSince: hourAgo,
                        in: transaction)
                }
            case .channel(let id)?:
                channels = contextChannels.filter { $0.channelID == id }
            }

            let ledger =
                channels.isEmpty ? [:] : try store.deliveries.priorityLedger(contextKey: key, since: hourAgo, channelsOnly: true, in: transaction)
            // A one-target row (a retry, a new token catching up) is material when that target has
            // not got this revision yet.
            var targetMaterial: String?
            if !fanOut, changeMaterial == nil, context.priorityHint != 5, let target = row.target {
                let received = try store.deliveries.lastDeliveredRev(contextKey: key, target: target, in: transaction)
                if received.map({ $0 < context.rev }) ?? true {
                    targetMaterial = received.map { "catching up from rev \($0)" } ?? "catching up (nothing delivered yet)"
                }
            }
            var priorities = PushPriorities(
                event: ended ? "end" : "update", rev: context.rev, activityType: context.activityType, material: changeMaterial ?? targetMaterial,
                unmaterial: context.priorityHint == 5
                    ? "asked for priority 5" : fanOut ? "quiet change (not material)" : "a resend of the state already pushed",
                hasAlert: context.alert != nil, configuration: configuration)
            var broadcasts: [PlannedPush] = []
            for (environment, channelID) in channels {
                var broadcast = priorities.plan(.channel(channelID), token: nil, used: ledger[.channel(channelID)] ?? 0)
                broadcast.channelEnvironment = environment
                broadcast.storesMessages =
                    try store.channels.channel(id: channelID, in: transaction)?.storagePolicy
                    == APNSChannelStoragePolicy.mostRecentMessageStored.rawValue
                broadcasts.append(broadcast)
            }
            let pushes = broadcasts + tokens.map { priorities.plan(.token($0.id), token: $0) }
            // A whole fan-out's tokens: read once this transaction committed, in pages, each sent
            // as it is read — the first push of a fan-out to 100,000 tokens does not wait for the
            // last token, nor does every other write wait for them all.
            let tokenPages =
                fanOut
                ? TokenPages(
                    contextKey: key, householdID: context.householdID, ledgerSince: changeMaterial == nil ? nil : hourAgo,
                    environments: configuration.environments, priorities: priorities)
                : nil

            // Once the final push reached one of the context's channels, that channel is deleted.
            let retire = ended ? channels.map(\.channelID) : []
            return .send(
                RenderedSync(
                    contextKey: key, rev: context.rev, contractName: context.activityType,
                    payload: payload, carriesHints: carriesHints, sentAlert: alert == nil ? nil : context.alert, pushes: pushes,
                    tokenPages: tokenPages, channelsToRetire: retire,
                    sentState: fanOut ? String(decoding: stateJSON, as: UTF8.self) : nil, renderedAt: now, unreadableAlert: unreadableAlert
                ))
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

/// The tokens of a whole fan-out, read after the render committed, a page at a time (by id,
/// environment after environment), so the first pushes go out while the rest are read
/// (docs/engine.md, "Fan-out for a sync").
struct TokenPages: Sendable {
    let contextKey: String
    let householdID: HouseholdID?
    /// With each token, its count of the budget's ledger since then (nil: not material, no counts).
    let ledgerSince: Date?
    /// The environments whose tokens are not all read yet, the one being read first.
    var environments: [PushEnvironment]
    /// The render's priorities and notes, for the tokens read.
    var priorities: PushPriorities
    /// The last token read in `environments.first`.
    var after: PushTokenID? = nil
}

/// Each target's priority and note (`docs/engine.md`, "Budgets and priority"): a material push at
/// 10 while the target's hourly ledger allows (or it carries an alert), at 5 once it is used; a
/// change that is not material at 5. The timeline's note of each push (`update rev 3 · p10: …`) is
/// made once per distinct one: a fan-out to 100,000 tokens has a handful (most tokens have used
/// as much of the hour's budget as each other).
struct PushPriorities: Sendable {
    /// What the note's wording depends on besides the change.
    private struct Reason: Hashable {
        var used: Int
        var limit: Int
        var immediate: Bool
    }

    let event: String
    let rev: Int
    let activityType: String
    /// Why the change matters (nil: it does not).
    let material: String?
    let hasAlert: Bool
    let configuration: EngineConfiguration
    /// The note of a push that is not material.
    private let unmaterialNote: String
    private var notes: [Reason: String] = [:]

    /// `unmaterial`: why a push goes at 5 when the change is not material.
    init(
        event: String, rev: Int, activityType: String, material: String?, unmaterial: String, hasAlert: Bool, configuration: EngineConfiguration
    ) {
        self.event = event
        self.rev = rev
        self.activityType = activityType
        self.material = material
        self.hasAlert = hasAlert
        self.configuration = configuration
        unmaterialNote = Self.note(event, rev, .considerPower, unmaterial)
    }

    private static func note(_ event: String, _ rev: Int, _ priority: APNSPriority, _ why: String) -> String {
        "\(event) rev \(rev) · p\(priority.rawValue): \(why)"
    }

    /// The push to `target`; `used`: its priority-10 pushes accepted this hour (a token's comes with it).
    mutating func plan(_ target: OutboxTarget, token: UpdateTarget?, used: Int? = nil) -> PlannedPush {
        guard let material else { return PlannedPush(target: target, token: token, priority: .considerPower, note: unmaterialNote) }
        let limit = configuration.priorityBudget(type: activityType, frequent: token?.frequentPushesEnabled ?? false)
        let used = token?.priorityPushesAccepted ?? used ?? 0
        let immediate = used < limit || hasAlert
        let priority: APNSPriority = immediate ? .immediate : .considerPower
        let reason = Reason(used: used, limit: limit, immediate: immediate)
        let text: String
        if let known = notes[reason] {
            text = known
        } else {
            text = Self.note(
                event, rev, priority,
                immediate
                    ? "material: \(material); priority-10 push \(used + 1) of \(limit) this hour"
                    : "material: \(material), but the hour's budget is used (\(used) of \(limit) priority-10 pushes)")
            notes[reason] = text
        }
        return PlannedPush(target: target, token: token, priority: priority, note: text, budgetLimited: !immediate)
    }
}
