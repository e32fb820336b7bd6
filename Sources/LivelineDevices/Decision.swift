import Foundation
import LivelineModel
import LivelineSandbox

/// ActivityKit's rules for one push (`docs/devices.md`), applied to a device's state; every outcome is
/// logged with its reason. WidgetKit's for a `widgets` push are in `Decision+Widgets.swift`.
struct Decision {
    var state: SimulatedDevice.State
    let device: SimulatedDevice
    let now: Date

    init(state: SimulatedDevice.State, device: SimulatedDevice, now: Date) {
        self.state = state
        self.device = device
        self.now = now
    }

    var configuration: DeviceConfiguration { device.configuration }
    var rules: DeviceRules { device.rules }

    mutating func note(_ verdict: DeviceLogEntry.Verdict, _ key: String?, _ message: String) {
        SimulatedDevice.note(&state, now, verdict, key, message)
    }

    mutating func drop(_ key: String?, _ reason: String) -> [AppAction] {
        note(.dropped, key, reason)
        return []
    }

    mutating func handle(_ push: AcceptedPush) -> [AppAction] {
        guard let root = try? JSONValue(json: Data(push.payload)).objectValue, let aps = root["aps"]?.objectValue else {
            return drop(nil, "the payload is not a JSON object with `aps`")
        }
        if push.pushType == "widgets" { return widgets(push, aps: aps) }
        if push.pushType == "alert" {
            func text(_ value: JSONValue?) -> String? { if case .string(let text)? = value { text } else { nil } }
            let title = text(aps["alert"]?.objectValue?["title"]) ?? "?"
            // The app opens a link only when it is a deep link (an app path), the one form it reads.
            let link = text(root["link"])
            let opens = link.flatMap(DeepLink.init)
            let shown = ShownNotification(
                title: title, body: text(aps["alert"]?.objectValue?["body"]), link: opens?.text, shownAt: now, collapseID: push.collapseID)
            // Notifications with one `apns-collapse-id` are shown as one: the newer replaces the older.
            if let collapseID = push.collapseID, let index = state.notifications.firstIndex(where: { $0.collapseID == collapseID }) {
                note(.applied, nil, "alert shown in place of the one with collapse id \(collapseID): \(title)")
                state.notifications[index] = shown
                return []
            }
            let linkNote = link.map { opens == nil ? " (link '\($0)' is no app path: a tap opens nothing)" : " (link \($0))" } ?? ""
            note(.applied, nil, "alert shown: \(title)" + linkNote)
            state.notifications.append(shown)
            return []
        }
        guard case .string(let event)? = aps["event"] else { return drop(nil, "no aps.event") }
        guard case .int(let timestamp)? = aps["timestamp"] else { return drop(nil, "no aps.timestamp (seconds)") }
        switch event {
        case "start": return start(push, aps: aps, timestamp: timestamp)
        case "update", "end": return change(push, aps: aps, timestamp: timestamp, end: event == "end")
        default: return drop(nil, "unknown aps.event '\(event)'")
        }
    }

    // MARK: Start

    mutating func start(_ push: AcceptedPush, aps: [String: JSONValue], timestamp: Int) -> [AppAction] {
        guard push.channelID == nil else { return drop(nil, "a broadcast push cannot start an activity") }
        guard configuration.os >= .pushToStart else { return drop(nil, "push-to-start needs iOS 17.2+; this device runs \(configuration.os)") }
        guard case .string(let type)? = aps["attributes-type"] else { return drop(nil, "start without attributes-type") }
        guard let attributes = aps["attributes"] else { return drop(nil, "start without attributes") }
        guard let contentState = aps["content-state"] else { return drop(nil, "start without content-state") }
        guard case .object(let alert)? = aps["alert"], alert["title"] != nil else { return drop(nil, "start without an alert title") }
        guard state.startTokens[type] == push.token else {
            return drop(nil, "the token is not this app's push-to-start token for \(type)")
        }
        guard device.activityTypes.contains(type), device.registry.contract(named: type) != nil else {
            return drop(nil, "the app has no ActivityAttributes type \(type)")
        }
        if let problem = device.registry.attributesError(attributes, typeName: type) { return drop(nil, "attributes do not decode: \(problem)") }
        if let problem = device.registry.contentStateError(contentState, typeName: type) {
            return drop(nil, "content-state does not decode: \(problem)")
        }
        let channel: String? = if case .string(let id)? = aps["input-push-channel"] { id } else { nil }
        if channel != nil && configuration.os < .channels {
            return drop(nil, "input-push-channel needs iOS 18; on \(configuration.os) the start does not start at all")
        }
        if Double(timestamp) > now.addingTimeInterval(rules.futureTimestampLimit).timeIntervalSince1970 {
            return drop(nil, "timestamp \(timestamp) is more than 8 hours ahead")
        }
        state.startLedger = state.startLedger.filter { now.timeIntervalSince($0) < rules.startBudgetWindow }
        guard state.startLedger.count < rules.startBudget else {
            return drop(nil, "push-to-start budget exceeded (\(state.startLedger.count) starts in \(Int(rules.startBudgetWindow / 60)) minutes)")
        }
        let running = state.activities.filter(\.isRunning).count
        guard running < rules.maximumActivities else {
            return drop(nil, "targetMaximumExceeded: \(running) activities of this app already (at most \(rules.maximumActivities))")
        }
        guard let key = device.contextKey(type, attributes, configuration) else {
            return drop(nil, "the app cannot tell the context key of these attributes")
        }
        state.startLedger.append(now)
        let staleAt = Self.date(aps["stale-date"])
        let createdStale = staleAt.map { $0 <= now } ?? false
        var activity = SimulatedActivity(
            id: "\(configuration.id)-activity-\(state.nextActivity)", attributesType: type, attributes: attributes, contextKey: key,
            contentState: contentState, timestamp: timestamp, state: createdStale ? .stale : .active, startedAt: now, staleAt: staleAt,
            endedAt: nil, dismissAt: nil, updateToken: nil, channelID: channel, awaitingAllow: false, priorityLedger: [],
            presented: !createdStale
        )
        state.nextActivity += 1
        var actions: [AppAction] = []
        if createdStale {
            note(.dropped, key, "started with a stale-date already past: created stale and never presented")
        } else {
            let duplicate = state.activities.contains { $0.contextKey == key && $0.isRunning }
            note(
                .applied, key,
                "started\(duplicate ? " a SECOND card for the same context" : "")\(activity.rev.map { " at rev \($0)" } ?? "")\(channel.map { " following channel \($0)" } ?? "")"
            )
        }
        if case .int(1)? = aps["input-push-token"] {
            if state.allowed {
                let token = state.random.token()
                activity.updateToken = token
                note(.event, key, "update token minted")
                actions.append(.register(kind: .update, token: token, contextKey: key, attributesType: type, activityID: activity.id))
            } else {
                activity.awaitingAllow = true
                note(.event, key, "no update token until the user taps Allow")
            }
        }
        state.activities.append(activity)
        if activity.isVisible, let rev = activity.rev { actions.append(.receipt(contextKey: key, rev: rev)) }
        return actions
    }

    // MARK: Update and end

    mutating func change(_ push: AcceptedPush, aps: [String: JSONValue], timestamp: Int, end: Bool) -> [AppAction] {
        let targets = state.activities.indices.filter { index in
            let activity = state.activities[index]
            if let token = push.token { return activity.updateToken == token }
            if let channel = push.channelID { return activity.channelID == channel }
            return false
        }
        guard !targets.isEmpty else { return drop(nil, "no activity on this device has this \(push.token != nil ? "token" : "channel")") }
        var actions: [AppAction] = []
        for index in targets { actions += change(index, push: push, aps: aps, timestamp: timestamp, end: end) }
        return actions
    }

    mutating func change(_ index: Int, push: AcceptedPush, aps: [String: JSONValue], timestamp: Int, end: Bool) -> [AppAction] {
        var activity = state.activities[index]
        let key = activity.contextKey
        let kind = end ? "end" : "update"
        guard activity.state != .ended && activity.state != .dismissed else {
            return drop(key, "\(kind) arrived after the activity ended: ignored")
        }
        if !end {
            guard timestamp > activity.timestamp else {
                return drop(key, "timestamp \(timestamp) not newer than current \(activity.timestamp)")
            }
            if Double(timestamp) > now.addingTimeInterval(rules.futureTimestampLimit).timeIntervalSince1970 {
                return drop(key, "timestamp \(timestamp) is more than 8 hours ahead")
            }
        }
        let contentState = aps["content-state"]
        if let contentState, let problem = device.registry.contentStateError(contentState, typeName: activity.attributesType) {
            return drop(key, "content-state does not decode: \(problem)")
        }
        if !end && contentState == nil { return drop(key, "update without content-state") }
        if !end && push.priority == 10 {
            activity.priorityLedger = activity.priorityLedger.filter { now.timeIntervalSince($0) < 3600 }
            let budget = configuration.frequentUpdatesAllowed ? rules.frequentPriorityBudget : rules.priorityBudget
            guard activity.priorityLedger.count < budget else {
                state.activities[index] = activity
                return drop(key, "throttled: \(activity.priorityLedger.count) priority-10 updates in the last hour (budget \(budget))")
            }
            activity.priorityLedger.append(now)
        }
        if let contentState { activity.contentState = contentState }
        activity.timestamp = max(activity.timestamp, timestamp)
        if end {
            activity.state = .ended
            activity.endedAt = now
            let cap = now.addingTimeInterval(rules.dismissalCap)
            let requested = Self.date(aps["dismissal-date"])
            activity.dismissAt = min(requested ?? cap, cap)
            if let requested, requested <= now {
                activity.state = .dismissed
                note(.applied, key, "ended; dismissal-date already past: removed at once")
            } else {
                note(
                    .applied, key,
                    "ended\(activity.rev.map { " at rev \($0)" } ?? ""); stays until \(Int(activity.dismissAt!.timeIntervalSince1970))\(requested == nil ? " (4-hour cap)" : "")"
                )
            }
        } else {
            if aps["dismissal-date"] != nil { note(.event, key, "dismissal-date on an update has no effect") }
            if let staleAt = Self.date(aps["stale-date"]) {
                activity.staleAt = staleAt
                if activity.state == .stale && staleAt > now { activity.state = .active }
            }
            note(.applied, key, "updated\(activity.rev.map { " to rev \($0)" } ?? "") (priority \(push.priority), timestamp \(timestamp))")
        }
        if case .object(let alert)? = aps["alert"], case .string(let title)? = alert["title"] { note(.event, key, "alert shown: \(title)") }
        state.activities[index] = activity
        var actions: [AppAction] = [.pull(contextKey: key, sinceRev: activity.rev)]
        if let rev = activity.rev, activity.isVisible { actions.append(.receipt(contextKey: key, rev: rev)) }
        return actions
    }

    static func date(_ value: JSONValue?) -> Date? {
        switch value {
        case .int(let seconds)?: Date(timeIntervalSince1970: TimeInterval(seconds))
        case .double(let seconds)?: Date(timeIntervalSince1970: seconds)
        default: nil
        }
    }
}
