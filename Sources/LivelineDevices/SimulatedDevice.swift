import Foundation
import LivelineCards
import LivelineClient
import LivelineModel
import LivelineSandbox
import Synchronization

/// A simulated iPhone (`docs/devices.md`): it holds the app's tokens and Live Activities, applies
/// ActivityKit's rules to every push the sandbox accepted for it, explains each decision in its
/// log, and says what the app does next (``AppAction``: register a token, pull, report a receipt),
/// which ``DeviceFleet`` carries out through the real API. Its widgets reload on WidgetKit pushes
/// within their budget (`docs/devices.md`, "Widgets").
public final class SimulatedDevice: Sendable {
    public let configuration: DeviceConfiguration
    public let rules: DeviceRules
    let registry: ContractRegistry
    /// The app's `ActivityAttributes` types: the configuration's, else every type of `registry`.
    let activityTypes: [String]
    let contextKey: ContextKeyResolver
    let clock: @Sendable () -> Date

    struct State: Sendable {
        var allowed: Bool
        var alertToken: String
        var startTokens: [String: String]  // type → token
        var activities: [SimulatedActivity] = []
        var startLedger: [Date] = []
        var log: [DeviceLogEntry] = []
        /// Alert pushes shown, oldest first (the notification center).
        var notifications: [ShownNotification] = []
        var nextActivity = 1
        var random: SplitMix64
        /// The widget extension's push token (iOS 26+, with at least one widget).
        var widgetToken: String? = nil
        var widgets: [SimulatedWidget] = []
    }
    private let state: Mutex<State>

    public init(
        _ configuration: DeviceConfiguration, rules: DeviceRules = DeviceRules(), seed: UInt64 = 1,
        contextKey: ContextKeyResolver? = nil, registry: ContractRegistry,
        clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.configuration = configuration
        self.rules = rules
        self.registry = registry
        activityTypes = configuration.activityTypes ?? registry.names
        self.contextKey = contextKey ?? ContextKeys.contracts(registry)
        self.clock = clock
        var random = SplitMix64(seed: seed ^ UInt64(truncatingIfNeeded: configuration.id.hashValueStable))
        let alert = random.token()
        var starts: [String: String] = [:]
        for type in activityTypes where configuration.os >= .pushToStart { starts[type] = random.token() }
        var initial = State(allowed: configuration.liveActivitiesAllowed, alertToken: alert, startTokens: starts, random: random)
        initial.widgets = configuration.widgets.map(SimulatedWidget.init)
        // Drawn last: the other tokens of a device are the same with or without widgets.
        if configuration.os >= .widgetPushes && !initial.widgets.isEmpty { initial.widgetToken = initial.random.token() }
        state = Mutex(initial)
    }

    // MARK: What it holds

    public var id: String { configuration.id }
    public var log: [DeviceLogEntry] { state.withLock { $0.log } }
    public var activities: [SimulatedActivity] { state.withLock { $0.activities } }
    public var alertToken: String { state.withLock { $0.alertToken } }
    public var startTokens: [String: String] { state.withLock { $0.startTokens } }
    public var liveActivitiesAllowed: Bool { state.withLock { $0.allowed } }
    /// The alert pushes shown, oldest first: what the user may tap (its `link` opens the app there).
    public var notifications: [ShownNotification] { state.withLock { $0.notifications } }

    /// The widget extension's WidgetKit push token (nil below iOS 26 or without widgets).
    public var widgetToken: String? { state.withLock { $0.widgetToken } }
    /// The widgets on the Home Screen, as configured.
    public var widgets: [SimulatedWidget] { state.withLock { $0.widgets } }

    /// The widget of `kind`, if the user placed one.
    public func widget(kind: String) -> SimulatedWidget? { state.withLock { $0.widgets.first { $0.kind == kind } } }

    /// Every token of the device (the sandbox must know them).
    public var tokens: [String] {
        state.withLock { state in
            [state.alertToken] + state.startTokens.values.sorted() + state.activities.compactMap(\.updateToken)
                + [state.widgetToken].compactMap { $0 }
        }
    }

    /// The activity of `contextKey` shown on the lock screen (the newest, if several).
    public func activity(contextKey: String) -> SimulatedActivity? {
        state.withLock { $0.activities.last { $0.contextKey == contextKey && $0.isVisible } }
    }

    /// The card of `contextKey` as it renders now (nil when none is on the lock screen).
    public func card(contextKey: String) -> RenderedCard? {
        activity(contextKey: contextKey).flatMap { CardRenderer.render($0, registry: registry) }
    }

    /// What the app registers at launch: its alert token and a push-to-start token per type;
    /// and what its widget extension hands over once WidgetKit gave it a push token.
    public func launchActions() -> [AppAction] {
        state.withLock { state in
            [.register(kind: .alert, token: state.alertToken, contextKey: nil, attributesType: nil)]
                + state.startTokens.keys.sorted().map { type in
                    .register(kind: .pushToStart, token: state.startTokens[type]!, contextKey: nil, attributesType: type)
                } + (Self.widgetRegistration(state).map { [AppAction.registerWidgets($0)] } ?? [])
        }
    }

    /// The widget extension's registration: its token and its widgets' kinds.
    static func widgetRegistration(_ state: State) -> WidgetPushRegistration? {
        state.widgetToken.map { WidgetPushRegistration(hexToken: $0, kinds: state.widgets.map(\.kind)) }
    }

    // MARK: Receiving a push

    /// Applies ActivityKit's rules to a push the sandbox accepted for this device.
    @discardableResult
    public func receive(_ push: AcceptedPush) -> [AppAction] {
        let now = clock()
        var actions = tick(now: now)
        actions += state.withLock { state -> [AppAction] in
            var decision = Decision(state: state, device: self, now: now)
            let result = decision.handle(push)
            state = decision.state
            return result
        }
        return actions
    }

    /// Time passes: stale dates, the 8-hour end, dismissals (`docs/devices.md`, "Lifetime").
    public func tick(now: Date? = nil) -> [AppAction] {
        let now = now ?? clock()
        return state.withLock { state in
            var actions: [AppAction] = []
            for index in state.activities.indices {
                var activity = state.activities[index]
                switch activity.state {
                case .pending:
                    if let startsAt = activity.startsAt, now >= startsAt {
                        actions += Self.startScheduled(&activity, &state, now: now)
                    }
                case .active, .stale:
                    if now >= activity.startedAt.addingTimeInterval(rules.lifetime) {
                        activity.state = .ended
                        activity.endedAt = now
                        activity.dismissAt = now.addingTimeInterval(rules.dismissalCap)
                        Self.note(&state, now, .event, activity.contextKey, "ended by the system: 8 hours since its start")
                    } else if activity.state == .active, let staleAt = activity.staleAt, now >= staleAt {
                        activity.state = .stale
                        Self.note(&state, now, .event, activity.contextKey, "stale: its stale-date \(Int(staleAt.timeIntervalSince1970)) has passed")
                    }
                case .ended:
                    if let dismissAt = activity.dismissAt, now >= dismissAt {
                        activity.state = .dismissed
                        Self.note(&state, now, .event, activity.contextKey, "removed from the lock screen (dismissal date reached)")
                    }
                case .dismissed:
                    break
                }
                state.activities[index] = activity
            }
            return actions
        }
    }

    /// The system starts an activity the app scheduled, at its date: shown, its update token
    /// minted (after "Allow"), and the app reports it active.
    static func startScheduled(_ activity: inout SimulatedActivity, _ state: inout State, now: Date) -> [AppAction] {
        activity.state = .active
        activity.startedAt = now
        note(&state, now, .event, activity.contextKey, "started by the system at the date the app scheduled")
        var actions: [AppAction] = []
        if activity.channelID == nil {
            if state.allowed {
                let token = state.random.token()
                activity.updateToken = token
                note(&state, now, .event, activity.contextKey, "update token minted")
                actions.append(
                    .register(
                        kind: .update, token: token, contextKey: activity.contextKey, attributesType: activity.attributesType, activityID: activity.id
                    ))
            } else {
                activity.awaitingAllow = true
            }
        }
        actions.append(
            .activity(
                contextKey: activity.contextKey, state: .active, startsAt: nil, style: activity.transient ? .transient : .standard,
                activityID: activity.id))
        return actions
    }

    /// The person leaves the app: its transient activities end (`ActivityStyle.transient`), and
    /// the app reports each ended.
    public func leaveApp() -> [AppAction] {
        let now = clock()
        return state.withLock { state in
            var actions: [AppAction] = []
            for index in state.activities.indices where state.activities[index].transient && state.activities[index].isRunning {
                state.activities[index].state = .dismissed
                state.activities[index].endedAt = now
                let key = state.activities[index].contextKey
                Self.note(&state, now, .event, key, "the person left the app: the transient activity ended")
                actions.append(.activity(contextKey: key, state: .ended, startsAt: nil, style: .transient, activityID: state.activities[index].id))
            }
            return actions
        }
    }

    // MARK: The user and the app

    /// The user taps "Allow" for the app's Live Activities: waiting activities mint their tokens.
    public func allow() -> [AppAction] {
        let now = clock()
        return state.withLock { state in
            state.allowed = true
            var actions: [AppAction] = []
            for index in state.activities.indices where state.activities[index].awaitingAllow {
                let token = state.random.token()
                state.activities[index].updateToken = token
                state.activities[index].awaitingAllow = false
                let activity = state.activities[index]
                Self.note(&state, now, .event, activity.contextKey, "the user allowed Live Activities: update token minted")
                actions.append(
                    .register(
                        kind: .update, token: token, contextKey: activity.contextKey, attributesType: activity.attributesType, activityID: activity.id
                    ))
            }
            return actions
        }
    }

    /// The app starts a card itself (`Activity.request`), as the shopping app does when its own
    /// user starts shopping. With `channelID` (iOS 18+) it follows the broadcast channel; else it
    /// gets an update token (after "Allow"), which the app registers. With a future `start`
    /// (iOS 26, `Activity.request(…alertConfiguration:start:)`) it waits `pending`, not shown,
    /// until ``tick(now:)`` reaches that date; a `transient` one ends when the person leaves the
    /// app (``leaveApp()``). Either is reported to the server (`POST /api/la/activity`).
    public func startLocally(
        attributesType type: String, attributes: JSONValue, contentState: JSONValue, channelID: String?, start: Date? = nil,
        style: ReportedActivityStyle = .standard
    ) -> [AppAction] {
        let now = clock()
        return state.withLock { state in
            func refuse(_ why: String) -> [AppAction] {
                Self.note(&state, now, .dropped, nil, "the app's own start of \(type) failed: \(why)")
                return []
            }
            guard activityTypes.contains(type), registry.contract(named: type) != nil else {
                return refuse("the app has no type \(type)")
            }
            if let problem = registry.attributesError(attributes, typeName: type) { return refuse("attributes do not decode: \(problem)") }
            if let problem = registry.contentStateError(contentState, typeName: type) { return refuse("content state does not decode: \(problem)") }
            if channelID != nil && configuration.os < .channels { return refuse("a channel needs iOS 18; this device runs \(configuration.os)") }
            if start != nil && configuration.os < .scheduledActivities {
                return refuse("a scheduled start needs iOS 26; this device runs \(configuration.os)")
            }
            let running = state.activities.filter(\.isRunning).count
            guard running < rules.maximumActivities else { return refuse("targetMaximumExceeded: \(running) activities already") }
            guard let key = contextKey(type, attributes, configuration) else { return refuse("the app cannot tell the context key") }
            var activity = SimulatedActivity(
                id: "\(configuration.id)-activity-\(state.nextActivity)", attributesType: type, attributes: attributes, contextKey: key,
                contentState: contentState, timestamp: 0, state: .active, startedAt: now, staleAt: nil, endedAt: nil, dismissAt: nil,
                updateToken: nil, channelID: channelID, awaitingAllow: false, priorityLedger: [], presented: true
            )
            state.nextActivity += 1
            activity.transient = style == .transient
            if let start, start > now {
                activity.state = .pending
                activity.startsAt = start
                activity.startedAt = start
                state.activities.append(activity)
                Self.note(&state, now, .applied, key, "scheduled by the app: pending until \(Int(start.timeIntervalSince1970))")
                return [.activity(contextKey: key, state: .pending, startsAt: start, style: style, activityID: activity.id)]
            }
            var actions: [AppAction] = []
            Self.note(
                &state, now, .applied, key,
                "started by the app itself\(activity.rev.map { " at rev \($0)" } ?? "")\(channelID.map { " following channel \($0)" } ?? "")")
            if channelID == nil {
                if state.allowed {
                    let token = state.random.token()
                    activity.updateToken = token
                    Self.note(&state, now, .event, key, "update token minted")
                    actions.append(.register(kind: .update, token: token, contextKey: key, attributesType: type, activityID: activity.id))
                } else {
                    activity.awaitingAllow = true
                }
            }
            state.activities.append(activity)
            if let rev = activity.rev { actions.append(.receipt(contextKey: key, rev: rev)) }
            // Reported once its token is registered (the server may know the context by it).
            if style == .transient {
                actions.append(.activity(contextKey: key, state: .active, startsAt: nil, style: style, activityID: activity.id))
            }
            return actions
        }
    }

    /// The user presses `button` on the running card of `contextKey`: the device logs what was
    /// pressed, and the app runs the button's intent. Only a log line when no such card or button
    /// is shown.
    public func press(_ button: CardButton, contextKey: String) -> [AppAction] {
        let shown = state.withLock { state in
            state.activities.last { $0.contextKey == contextKey && $0.isVisible && $0.state != .ended }
        }
        guard let shown, let press = button.press(shown) else {
            note(.event, "nothing to \(button.name): the card shows no such button", contextKey: contextKey)
            return []
        }
        note(.event, press.pressed, contextKey: contextKey)
        return [.intent(contextKey: contextKey, press.intent, sinceRev: shown.rev)]
    }

    /// The user swipes the card of `contextKey` away.
    public func dismiss(contextKey: String) -> [AppAction] {
        let now = clock()
        return state.withLock { state in
            var actions: [AppAction] = []
            for index in state.activities.indices where state.activities[index].contextKey == contextKey && state.activities[index].isVisible {
                state.activities[index].state = .dismissed
                state.activities[index].endedAt = state.activities[index].endedAt ?? now
                Self.note(&state, now, .event, contextKey, "dismissed by the user")
                actions.append(.dismissed(contextKey: contextKey))
            }
            return actions
        }
    }

    /// The system gives the activity of `contextKey` a new update token (the old one then gets 410).
    public func rotateUpdateToken(contextKey: String) -> (old: String, new: String)? {
        let now = clock()
        return state.withLock { state in
            guard let index = state.activities.lastIndex(where: { $0.contextKey == contextKey && $0.updateToken != nil }),
                let old = state.activities[index].updateToken
            else { return nil }
            let new = state.random.token()
            state.activities[index].updateToken = new
            Self.note(&state, now, .event, contextKey, "update token rotated")
            return (old, new)
        }
    }

    /// WidgetKit gives the widget extension a new push token: `pushTokenDidChange(_:widgets:)`
    /// hands it over ("Updating widgets with WidgetKit push notifications").
    public func rotateWidgetToken() -> (old: String, new: WidgetPushRegistration)? {
        let now = clock()
        return state.withLock { state in
            guard let old = state.widgetToken else { return nil }
            state.widgetToken = state.random.token()
            Self.note(&state, now, .event, nil, "widget push token rotated")
            return Self.widgetRegistration(state).map { (old, $0) }
        }
    }

    /// The system gives the push-to-start token of `type` a new value.
    public func rotateStartToken(type: String) -> (old: String, new: String)? {
        let now = clock()
        return state.withLock { state in
            guard let old = state.startTokens[type] else { return nil }
            let new = state.random.token()
            state.startTokens[type] = new
            Self.note(&state, now, .event, nil, "push-to-start token of \(type) rotated")
            return (old, new)
        }
    }

    /// The app pulled the truth of `contextKey` and updates its activity locally (the revision
    /// guard: only a newer revision replaces what is shown; an ended context ends the card).
    /// Returns the receipt to report, if the card changed.
    public func applyPull(contextKey: String, rev: Int, contentState: JSONValue, ended: Bool, dismissalDate: Date? = nil) -> [AppAction] {
        let now = clock()
        return state.withLock { state in
            guard let index = state.activities.lastIndex(where: { $0.contextKey == contextKey && $0.isVisible }) else { return [] }
            var activity = state.activities[index]
            guard activity.state != .ended else { return [] }
            if let shown = activity.rev, shown >= rev {
                Self.note(&state, now, .event, contextKey, "pulled rev \(rev): the card already shows rev \(shown)")
                return []
            }
            if let problem = registry.contentStateError(contentState, typeName: activity.attributesType) {
                Self.note(&state, now, .dropped, contextKey, "pulled rev \(rev) does not decode: \(problem)")
                return []
            }
            activity.contentState = contentState
            if ended {
                // The app ends it with the server's dismissal date (at most the system's cap; a
                // past one removes the card at the next tick), as the end push would have.
                activity.state = .ended
                activity.endedAt = now
                let cap = now.addingTimeInterval(rules.dismissalCap)
                activity.dismissAt = dismissalDate.map { min($0, cap) } ?? cap
            }
            state.activities[index] = activity
            Self.note(&state, now, .applied, contextKey, "updated by the app from pull: rev \(rev)\(ended ? " (ended)" : "")")
            return [.receipt(contextKey: contextKey, rev: rev)]
        }
    }

    /// The timeline provider of the widget of `kind` read `contextKey` at `rev` (after a reload):
    /// the widget shows it, unless it shows a newer revision already (the SDK's revision guard).
    /// Logged as "widget <kind> reloaded: shows rev N".
    public func showInWidget(kind: String, contextKey: String, rev: Int, ended: Bool = false) {
        let now = clock()
        state.withLock { state in
            guard let index = state.widgets.firstIndex(where: { $0.kind == kind }) else { return }
            if let shown = state.widgets[index].shown[contextKey], shown > rev {
                Self.note(&state, now, .event, contextKey, "widget \(kind) reloaded: keeps rev \(shown) (read rev \(rev))")
                return
            }
            state.widgets[index].shown[contextKey] = rev
            Self.note(&state, now, .applied, contextKey, "widget \(kind) reloaded: shows rev \(rev)\(ended ? " (ended)" : "")")
        }
    }

    func appendLog(_ entry: DeviceLogEntry) {
        state.withLock { $0.log.append(entry) }
    }

    static func note(_ state: inout State, _ now: Date, _ verdict: DeviceLogEntry.Verdict, _ key: String?, _ message: String) {
        state.log.append(DeviceLogEntry(at: now, verdict: verdict, contextKey: key, message: message))
    }
}

extension String {
    /// A hash that is the same in every run (Swift's `hashValue` is seeded per process).
    var hashValueStable: UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return hash
    }
}

/// An alert push as the notification center shows it.
public struct ShownNotification: Sendable, Hashable {
    public var title: String
    public var body: String?
    /// The top-level `link` of the payload when it is a ``DeepLink``: where a tap opens the app
    /// (`/cook-suggest/cs_…`); nil when there is none or it is not an app path.
    public var link: String?
    public var shownAt: Date
    /// Its `apns-collapse-id`: a later alert with the same one takes its place.
    public var collapseID: String? = nil
}
