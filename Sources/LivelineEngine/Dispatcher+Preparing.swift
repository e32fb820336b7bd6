import Foundation
import LivelineModel
import LivelinePushWire
import LivelineStore
import Synchronization

extension Dispatcher {
    /// What `row` sends now, or why it sends nothing. Reads (and, for a sync row, renders in a
    /// write transaction that takes the next push timestamp); decides nothing about the row.
    /// `batch`: what the batch read for its message rows at once (``readForBatch(_:)``); nil
    /// reads this row's.
    func prepare(_ row: OutboxRow, now: Date, batch: BatchReads? = nil) -> Preparation {
        switch row.kind {
        case .sync: prepareSync(row, now: now)
        case .message: prepareMessage(row, now: now, batch: batch)
        }
    }

    /// What the message rows of a batch need, read once for all of them.
    struct BatchReads {
        /// Each message row's message, by row id.
        var messages: [Int: OutboxMessage] = [:]
        /// The tokens they push to, in one read; nil when that failed (each row then reads its
        /// own, and says so if it cannot).
        var tokens: [PushTokenID: PushTokenRecord]?
        /// The web push subscriptions read from those tokens, each decoded once per batch by
        /// whichever row needs it first (a notify reaches each of a user's browsers, and several
        /// notifies the same ones).
        let subscriptions = SubscriptionCache()
    }

    final class SubscriptionCache: Sendable {
        private let decoded = Mutex<[PushTokenID: WebPushMessage.Recipient]>([:])

        /// The subscription `token` holds, read for sending now or earlier in the batch; throws
        /// saying why it cannot be sent to.
        func recipient(of token: PushTokenRecord) throws(WebPushError) -> WebPushMessage.Recipient {
            if let known = decoded.withLock({ $0[token.id] }) { return known }
            guard let subscription = try? JSONDecoder().decode(WebPushSubscription.self, fromUntrusted: Data(token.token.utf8)) else {
                throw WebPushError("the stored subscription of token \(token.id) cannot be read")
            }
            let recipient: WebPushMessage.Recipient
            do {
                recipient = try WebPushMessage.Recipient(subscription)
            } catch let error as WebPushError {
                throw WebPushError("the web push could not be made: \(error)", code: error.code)
            } catch {
                throw WebPushError("the web push could not be made: \(error)")
            }
            decoded.withLock { $0[token.id] = recipient }
            return recipient
        }
    }

    func readForBatch(_ rows: [OutboxRow]) -> BatchReads {
        var reads = BatchReads()
        // Decoded on every core at once (JSON decoding is most of what reading a row costs).
        let messageRows = rows.filter { $0.kind == .message }
        let decoded = Mutex<[Int: OutboxMessage]>([:])
        DispatchQueue.concurrentPerform(iterations: messageRows.count) { index in
            let row = messageRows[index]
            if let message = OutboxMessage.decode(row.headers) { decoded.withLock { $0[row.id] = message } }
        }
        reads.messages = decoded.withLock { $0 }
        let tokenIDs = Set(reads.messages.values.compactMap(\.tokenID))
        if tokenIDs.count > 1 { reads.tokens = try? store.tokens.records(ids: Array(tokenIDs)) }
        return reads
    }

    private func prepareSync(_ row: OutboxRow, now: Date) -> Preparation {
        let outcome: RenderOutcome
        do {
            outcome = try renderer.render(row, now: now)
        } catch  where Self.isTransient(error) {
            return .unsent(.databaseUnavailable("rendering: \(error)", storageFull: Self.isStorageFull(error)))
        } catch {
            return .unsent(.unsendable("rendering failed: \(error)"))
        }
        switch outcome {
        case .nothing:
            return .unsent(.nothingToSend)  // the context is gone (a fan-out nobody follows was completed by the claim)
        case .postpone(let until, let reason):
            return .unsent(.postponed(until: until, reason: reason))
        case .send(let rendered):
            if let why = rendered.unreadableAlert {
                logger.record(EngineEvent(.warning, .alertDropped, contextKey: rendered.contextKey, outboxID: row.id, message: why))
            }
            return prepareSends(row, rendered, now: now)
        }
    }

    /// A rendered sync's requests, once the payload passed the contract's check: its channels',
    /// a one-target row's, and a whole fan-out's first page of tokens (the rest are read and sent
    /// a page at a time by ``stream(_:now:)``).
    private func prepareSends(_ row: OutboxRow, _ rendered: RenderedSync, now: Date) -> Preparation {
        var pushes = rendered.pushes
        var pages = rendered.tokenPages
        if var first = pages {
            do {
                pushes += try renderer.nextPage(of: &first, size: configuration.tokenPageSize) ?? []
            } catch  where Self.isTransient(error) {
                // As a render that failed so: nothing went out, the row is tried again later.
                return .unsent(.databaseUnavailable("reading the fan-out's tokens: \(error)", storageFull: Self.isStorageFull(error)))
            } catch {
                return .unsent(.unsendable("reading the fan-out's tokens failed: \(error)"))
            }
            pages = first.environments.isEmpty ? nil : first
        }
        let broadcastOnly = pushes.allSatisfy { $0.token == nil }
        let report = PayloadCheck(destination: broadcastOnly && !pushes.isEmpty ? .broadcast : .device, now: now, registry: renderer.registry)
            .check(json: Data(rendered.payload), typeName: rendered.contractName)
        guard report.isAccepted else {
            let problems = report.errors.prefix(3).map { "\($0.keyPath) [\($0.code.rawValue)] \($0.message)" }.joined(separator: "; ")
            return .unsent(.unsendable("payload check refused rev \(rendered.rev): \(problems)"))
        }
        // Nobody to send to yet; a later change or registration brings it.
        guard !pushes.isEmpty else { return .unsent(.nothingToSend) }
        var prepared = PreparedRow(row: row, rev: rendered.rev, sends: sends(of: pushes, rendered, now: now), sync: rendered, message: nil)
        prepared.remainingPages = pages
        return .send(prepared)
    }

    /// The requests of the next page of a whole fan-out's tokens (`pages` moves on only once a
    /// page was read); nil once every token was read. A page the database is too busy to read is
    /// read again, up to ``pageReadTries`` times in all, a little later each time; one that still
    /// cannot be read throws (the fan-out then stops: ``PreparedRow/unfinished``).
    func nextSends(of pages: inout TokenPages, _ rendered: RenderedSync, now: Date) throws -> [PreparedSend]? {
        var failures = 0
        while true {
            do {
                guard let pushes = try renderer.nextPage(of: &pages, size: configuration.tokenPageSize) else { return nil }
                return sends(of: pushes, rendered, now: now)
            } catch {
                failures += 1
                guard Self.isTransient(error), failures < Self.pageReadTries else { throw error }
                // At most 0.3 s in all.
                Thread.sleep(forTimeInterval: 0.1 * Double(failures))
            }
        }
    }

    /// Reads of one page of a fan-out's tokens before it stops (``nextSends(of:_:now:)``).
    static let pageReadTries = 3

    /// The requests of `pushes`: per push only what differs, the token and its id (the topic is
    /// one; the notes are as few as their reasons, made by the renderer).
    private func sends(of pushes: [PlannedPush], _ rendered: RenderedSync, now: Date) -> [PreparedSend] {
        let topic = APNSPushType.liveActivity.topic(bundleID: configuration.bundleID)
        var ids = APNSIDGenerator()
        return pushes.map { push -> PreparedSend in
            let request: PreparedSend.Request =
                switch push.target {
                case .channel(let channelID):
                    .broadcast(
                        APNSBroadcast(
                            bundleID: configuration.bundleID, channelID: channelID, priority: push.priority,
                            // One it may store for the 8 hours the channel keeps one.
                            expiration: push.storesMessages ? .at(now.addingTimeInterval(8 * 3600)) : .immediately,
                            payload: rendered.payload
                        ))
                case .token:
                    .device(
                        APNSNotification(
                            deviceToken: push.token?.token ?? "", pushType: .liveActivity, topic: topic, priority: push.priority,
                            apnsID: ids.next(), payload: rendered.payload))
                }
            return PreparedSend(
                target: push.target, request: request, priority: push.priority.rawValue, note: push.note, budgetLimited: push.budgetLimited,
                environment: push.token?.environment ?? push.channelEnvironment ?? configuration.environment,
                fallbackEnvironment: push.token.flatMap(configuration.fallbackEnvironment(of:)))
        }
    }

    private func prepareMessage(_ row: OutboxRow, now: Date, batch: BatchReads?) -> Preparation {
        guard let message = batch?.messages[row.id] ?? OutboxMessage.decode(row.headers) else {
            return .unsent(.unsendable("the message row has no readable headers"))
        }
        switch message {
        case .channelDelete(let channelID, let environmentAsked, let note):
            // An orphan listed while its row was being written is in use by now: kept.
            let environment: PushEnvironment
            do {
                let (channel, linked) = try store.database.read { transaction in
                    (
                        try store.channels.channel(id: channelID, in: transaction),
                        try store.channels.linkedContext(channelID: channelID, in: transaction)
                    )
                }
                if let linked, channel?.isActive == true, try store.contexts.context(key: linked.key)?.state == .active {
                    return .unsent(.channelInUse(channelID: channelID, contextKey: linked.key))
                }
                // An orphan has no row: its message names the environment it was listed in.
                environment = environmentAsked ?? channel.flatMap { PushEnvironment(rawValue: $0.environment) } ?? configuration.environment
            } catch  where Self.isTransient(error) {
                return .unsent(.databaseUnavailable("reading the channel to delete: \(error)"))
            } catch {
                return .unsent(.unsendable("reading the channel to delete failed: \(error)"))
            }
            let send = PreparedSend(
                target: .channel(channelID), request: .deleteChannel(channelID), priority: 10, note: note, environment: environment)
            return .send(PreparedRow(row: row, rev: nil, sends: [send], sync: nil, message: message))
        case .start(let tokenID, let startID, let rev, let push, let note):
            return prepareStart(row, message, tokenID: tokenID, startID: startID, rev: rev, push: push, note: note, now: now, batch: batch)
        case .alert(let tokenID, let push, let note):
            // A widget push follows the device's new widget token: it says "reload", which is as
            // true for the token that replaced the one it was queued for (its pacing moved too).
            return prepareDevicePush(
                row, message, tokenID: tokenID, push: push, note: note, rev: nil, startID: nil, tokens: batch?.tokens,
                followsReplacement: push.pushType == .widgets)
        case .activityEnd(let tokenID, let push, let note):
            return prepareDevicePush(
                row, message, tokenID: tokenID, push: push, note: note, rev: nil, startID: nil, tokens: batch?.tokens, replacedToo: true)
        case .webPush(let tokenID, let delivery, let note):
            return prepareWebPush(
                row, message, tokenID: tokenID, delivery: delivery, note: note, now: now, tokens: batch?.tokens, subscriptions: batch?.subscriptions)
        }
    }

    /// A start's request, unless its context ended, its device answered it, it settled, its time
    /// went by (a scheduled one) or it may be on the device already (then it waits a lease).
    private func prepareStart(
        _ row: OutboxRow, _ message: OutboxMessage, tokenID: PushTokenID, startID: Int, rev: Int, push: OutboxMessage.Push, note: String,
        now: Date, batch: BatchReads?
    ) -> Preparation {
        if let key = row.contextKey {
            // Ended (or gone) before its start went out: a start now would open a card nothing ends.
            do {
                guard try store.contexts.context(key: key)?.state == .active else { return .unsent(.startAfterTheEnd(startID: startID)) }
            } catch  where Self.isTransient(error) {
                return .unsent(.databaseUnavailable("reading the context of a start: \(error)"))
            } catch {
                return .unsent(.unsendable("reading the context of a start failed: \(error)"))
            }
        }
        // Never a second card: a start its device answered, or APNs accepted, is not sent
        // (again); nor one retired meanwhile. One whose push may have reached APNs without
        // the answer being recorded (taken back after its dispatcher died between APNs'
        // accepting it and the record of the answer; or sent without an answer) may be on the
        // device already, whose app registers its update token once it can: it waits one
        // lease for that answer, then goes out again (`docs/reliability.md`, "Crash loop").
        let start: StartRecord?
        do {
            start = try store.starts.start(id: startID)
            if start?.updateTokenAt != nil { return .unsent(.startAnswered(startID: startID)) }
            if let start, start.status != .queued { return .unsent(.startSettled(startID: startID, status: start.status)) }
            // Queued for an earlier taking of this device's start (settled, then taken again, as a
            // renewal does): that one is over, and only the row of the present one goes out.
            if let start, row.createdAt < start.createdAt { return .unsent(.startSettled(startID: startID, status: .skipped)) }
        } catch  where Self.isTransient(error) {
            return .unsent(.databaseUnavailable("reading the start: \(error)"))
        } catch {
            return .unsent(.unsendable("reading the start failed: \(error)"))
        }
        if !row.mayHaveBeenSent, let missed = missedStart(start, now: now) { return missed }
        // A scheduled start due on a device whose app started the card meanwhile: not a second card.
        if let start, start.scheduledAt != nil, !row.mayHaveBeenSent {
            do {
                if try store.tokens.showsCard(contextKey: start.contextKey, householdID: start.householdID, deviceID: start.deviceID) {
                    return .unsent(.startShownAlready(startID: start.id))
                }
            } catch  where Self.isTransient(error) {
                return .unsent(.databaseUnavailable("reading whether the device shows the card: \(error)"))
            } catch {
                return .unsent(.unsendable("reading whether the device shows the card failed: \(error)"))
            }
        }
        if row.mayHaveBeenSent {
            let why =
                row.wasTakenBack
                ? "taken back after its dispatcher's lease ran out" : "its last try may have reached APNs without an answer"
            return .unsent(
                .postponed(
                    until: now.addingTimeInterval(configuration.lease),
                    reason:
                        "\(why), the start may have reached the device: sent again in \(Int(configuration.lease)) s unless the device answers it first"
                ))
        }
        // A scheduled start that cannot have reached the device yet (a row that may have is
        // postponed above) follows its device's new push-to-start token; one that may have never
        // does (it would open a second card).
        let followsReplacement = start?.scheduledAt != nil
        return prepareDevicePush(
            row, message, tokenID: tokenID, push: push, note: note, rev: rev, startID: startID, tokens: batch?.tokens,
            followsReplacement: followsReplacement)
    }

    /// A scheduled start whose time plus the grace period passed before it could go out (the
    /// server was down then: `docs/api.md`, "Scheduled starts"): missed, never sent late.
    private func missedStart(_ start: StartRecord?, now: Date) -> Preparation? {
        guard let start, let scheduledAt = start.scheduledAt, now > scheduledAt.addingTimeInterval(configuration.scheduledStartGrace) else {
            return nil
        }
        let minutes = Int(configuration.scheduledStartGrace / 60)
        let why = "missed: scheduled for \(scheduledAt.formatted(.iso8601)), and not sent within the grace period of \(minutes) minutes after it"
        return .unsent(.startMissed(startID: start.id, why: why))
    }

    /// The active push-to-start or widget token that replaced `token` in its slot (the app got a
    /// new one after a scheduled start or a widget push was queued: it goes to the device's token
    /// of its time); nil when there is none or it cannot be read now.
    private func successor(of token: PushTokenRecord) -> PushTokenRecord? {
        guard token.kind == .pushToStart || token.kind == .widgets, token.endReason != "moved" else { return nil }
        return try? store.tokens.activeToken(householdID: token.householdID, environment: token.environment, kind: token.kind, slot: token.slot)
    }

    /// A web push to its subscription while the token is active: the row's plaintext encrypted
    /// for the subscription's keys and signed with this server's VAPID key (`docs/engine.md`,
    /// "Notify").
    private func prepareWebPush(
        _ row: OutboxRow, _ message: OutboxMessage, tokenID: PushTokenID, delivery: OutboxMessage.WebPushDelivery, note: String, now: Date,
        tokens: [PushTokenID: PushTokenRecord]?, subscriptions: SubscriptionCache?
    ) -> Preparation {
        guard let webPush else { return .unsent(.unsendable("web push is not configured on this server (no VAPID identity)")) }
        let read = messageToken(tokenID, tokens: tokens, what: "the subscription of a web push")
        if let failure = read.failure { return failure }
        guard let token = read.token, token.status == .active, token.kind == .webPush else {
            return .unsent(.tokenInactive(startID: nil, note: note))
        }
        let recipient: WebPushMessage.Recipient
        do {
            recipient = try (subscriptions ?? SubscriptionCache()).recipient(of: token)
        } catch {
            // A key no push can be encrypted for ends its subscription (docs/operations.md, "Web Push").
            if error.code == .invalidKey { return .unsent(.subscriptionUnusable(tokenID: tokenID, why: error.description)) }
            return .unsent(.unsendable(error.description))
        }
        let request: WebPushRequest
        do {
            request = try WebPushMessage.request(
                payload: row.payload ?? [], to: recipient, ttl: delivery.ttl, urgency: delivery.urgency, topic: delivery.topic,
                identity: webPush.identity, now: now)
        } catch let error as WebPushError where error.code == .invalidKey {
            return .unsent(.subscriptionUnusable(tokenID: tokenID, why: "the web push could not be made: \(error)"))
        } catch {
            return .unsent(.unsendable("the web push could not be made: \(error)"))
        }
        let send = PreparedSend(target: .token(tokenID), request: .webPush(request), priority: 10, note: note)
        return .send(PreparedRow(row: row, rev: nil, sends: [send], sync: nil, message: message))
    }

    /// The token a message row pushes to, from the batch's read (`tokens`) or read now; or the
    /// row's preparation when it cannot be read (`what` names it in the reason).
    private func messageToken(
        _ tokenID: PushTokenID, tokens: [PushTokenID: PushTokenRecord]?, what: String
    ) -> (token: PushTokenRecord?, failure: Preparation?) {
        do {
            return (try tokens.map { $0[tokenID] } ?? store.tokens.record(id: tokenID), nil)
        } catch  where Self.isTransient(error) {
            return (nil, .unsent(.databaseUnavailable("reading \(what): \(error)")))
        } catch {
            return (nil, .unsent(.unsendable("reading \(what) failed: \(error)")))
        }
    }

    /// A start's or alert's request to its token, while the token is active (`replacedToo`: or
    /// replaced by a newer one of its slot, for an activity's own end).
    private func prepareDevicePush(
        _ row: OutboxRow, _ message: OutboxMessage, tokenID: PushTokenID, push: OutboxMessage.Push, note: String, rev: Int?, startID: Int?,
        tokens: [PushTokenID: PushTokenRecord]?, replacedToo: Bool = false, followsReplacement: Bool = false
    ) -> Preparation {
        let read = messageToken(tokenID, tokens: tokens, what: "the token of a message")
        if let failure = read.failure { return failure }
        var found = read.token
        if followsReplacement, let replaced = found, replaced.status == .replaced, let successor = successor(of: replaced) { found = successor }
        guard let token = found, token.status == .active || (replacedToo && token.status == .replaced) else {
            return .unsent(.tokenInactive(startID: startID, note: note))
        }
        // Queued while the server served the token's environment, which it no longer does: sent
        // through another environment it would be refused and the valid token called dead.
        guard configuration.environments.contains(token.environment) else {
            return .unsent(.unsendable("the token's APNs environment (\(token.environment.rawValue)) is not served by this server"))
        }
        let notification = APNSNotification(
            deviceToken: token.token, pushType: push.pushType, topic: push.pushType.topic(bundleID: configuration.bundleID),
            priority: push.priority, expiration: push.expiration.map(APNSExpiration.init(seconds:)), collapseID: push.collapseID,
            payload: row.payload ?? []
        )
        let send = PreparedSend(
            target: .token(token.id), request: .device(notification), priority: push.priority.rawValue, note: note, environment: token.environment,
            fallbackEnvironment: configuration.fallbackEnvironment(of: token))
        return .send(PreparedRow(row: row, rev: rev, sends: [send], sync: nil, message: message))
    }
}
