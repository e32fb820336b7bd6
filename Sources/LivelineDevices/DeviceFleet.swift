import Foundation
import LivelineClient
import LivelineModel
import LivelineSandbox
import LivelineScheduling
import Synchronization

/// Simulated iPhones attached to an APNs sandbox (`docs/devices.md`): every push the sandbox accepts for
/// a device's token — or a channel one of its activities follows — is delivered to it (through
/// the configured faults), and what its app does next (register tokens, pull, report receipts and
/// dismissals, run the intent of a button its user pressed) is carried out through the real API
/// with ``LivelineClient``.
///
/// A fleet may have a sandbox per APNs environment (``init(development:production:faults:)``):
/// a device's tokens are then registered in, and its pushes received from, the sandbox of its
/// ``DeviceConfiguration/environment`` only — as a debug build's tokens work with Apple's
/// development server and an App Store build's with the production one (`docs/apns.md` §1.1).
public final class DeviceFleet: Sendable {
    /// The development environment's sandbox (with ``init(sandbox:faults:)``, the only one).
    public let sandbox: APNSSandbox
    /// The production environment's sandbox (with ``init(sandbox:faults:)``, the same one).
    public let productionSandbox: APNSSandbox

    struct Member: Sendable {
        let device: SimulatedDevice
        let client: LivelineClient?
        var online = true
        /// While offline: the one push APNs keeps for the app (the latest).
        var stored: AcceptedPush?
        /// Held back to be delivered out of order.
        var held: [AcceptedPush] = []
    }

    struct State: Sendable {
        var members: [String: Member] = [:]
        var tokens: [String: String] = [:]  // token → device id
        var faults: DeviceFaults
        var pullsOnWake = true
        var random: SplitMix64
        var pending = 0
    }
    private let state: Mutex<State>
    private let queue = DispatchQueue(label: "liveline-device-fleet")
    /// What is observed in each distinct sandbox.
    private let observations: Mutex<[(sandbox: APNSSandbox, id: UInt64)]> = Mutex([])

    /// A fleet attached to one sandbox: every device's tokens live there, whatever its environment.
    public convenience init(sandbox: APNSSandbox, faults: DeviceFaults = .none) {
        self.init(development: sandbox, production: sandbox, faults: faults)
    }

    /// A fleet attached to a sandbox per environment (they may be the same one): the tokens of a
    /// device of environment `sandbox` live in `development`, those of a `production` one in
    /// `production`.
    public init(development: APNSSandbox, production: APNSSandbox, faults: DeviceFaults = .none) {
        self.sandbox = development
        self.productionSandbox = production
        state = Mutex(State(faults: faults, random: SplitMix64(seed: faults.seed)))
        var environments: [(APNSSandbox, Set<PushEnvironment>)] = [(development, [.sandbox, .production])]
        if development !== production { environments = [(development, [.sandbox]), (production, [.production])] }
        for (sandbox, served) in environments {
            let id = sandbox.observeAccepted { [weak self] push in self?.accepted(push, environments: served) }
            observations.withLock { $0.append((sandbox, id)) }
        }
    }

    /// The sandbox of `environment`'s devices.
    public func sandbox(for environment: PushEnvironment) -> APNSSandbox {
        environment == .production ? productionSandbox : sandbox
    }

    /// The sandbox of `device`'s environment.
    private func sandbox(of device: SimulatedDevice) -> APNSSandbox { sandbox(for: device.configuration.environment) }

    /// The network faults in force.
    public var faults: DeviceFaults { state.withLock { $0.faults } }

    /// Replaces the faults; the random draws start again from the new seed.
    public func setFaults(_ faults: DeviceFaults) {
        state.withLock { state in
            state.faults = faults
            state.random = SplitMix64(seed: faults.seed)
        }
    }

    /// Whether apps pull when a push wakes them (default). Off, only pushes and explicit
    /// ``foreground(device:)`` pulls change the cards — to see what pushes alone would show.
    public func setPullsOnWake(_ enabled: Bool) {
        state.withLock { $0.pullsOnWake = enabled }
    }

    /// Stops receiving pushes.
    public func detach() {
        for (sandbox, id) in observations.withLock({ $0 }) { sandbox.stopObserving(id) }
    }

    deinit { detach() }

    // MARK: Devices

    /// Adds a device: its tokens become known to the sandbox of its environment, and its app
    /// registers them with the server through `client` (when given), as at launch.
    public func add(_ device: SimulatedDevice, client: LivelineClient?) {
        for token in device.tokens { sandbox(of: device).registerDevice(token: token) }
        state.withLock { state in
            state.members[device.id] = Member(device: device, client: client)
            for token in device.tokens { state.tokens[token] = device.id }
        }
        perform(device.launchActions(), for: device.id)
    }

    public func device(_ id: String) -> SimulatedDevice? { state.withLock { $0.members[id]?.device } }

    public var devices: [SimulatedDevice] { state.withLock { $0.members.values.map(\.device).sorted { $0.id < $1.id } } }

    /// Takes the device off the network (APNs keeps only its latest push) or back on (that push arrives).
    public func setOnline(_ online: Bool, device id: String) {
        let stored: AcceptedPush? = state.withLock { state in
            guard var member = state.members[id] else { return nil }
            member.online = online
            let stored = online ? member.stored : nil
            if online { member.stored = nil }
            state.members[id] = member
            return stored
        }
        if let stored { deliver([stored], to: id) }
    }

    /// The user taps "Allow": waiting activities mint their update tokens, which the app registers.
    public func allow(device id: String) {
        guard let device = device(id) else { return }
        perform(device.allow(), for: id)
    }

    /// The user swipes a card away; the app reports it.
    public func dismiss(device id: String, contextKey: String) {
        guard let device = device(id) else { return }
        perform(device.dismiss(contextKey: contextKey), for: id)
    }

    /// The system rotates an activity's update token: the old one gets `410 Unregistered` from the
    /// sandbox, and the app registers the new one.
    public func rotateUpdateToken(device id: String, contextKey: String) {
        guard let device = device(id), let (old, new) = device.rotateUpdateToken(contextKey: contextKey) else { return }
        let activity = device.activity(contextKey: contextKey)
        sandbox(of: device).markUnregistered(token: old, at: device.clock())
        perform(
            [.register(kind: .update, token: new, contextKey: contextKey, attributesType: activity?.attributesType, activityID: activity?.id)],
            for: id)
    }

    /// The system rotates the push-to-start token of `type`.
    public func rotateStartToken(device id: String, type: String) {
        guard let device = device(id), let (old, new) = device.rotateStartToken(type: type) else { return }
        sandbox(of: device).markUnregistered(token: old, at: device.clock())
        perform([.register(kind: .pushToStart, token: new, contextKey: nil, attributesType: type)], for: id)
    }

    /// WidgetKit gives the device's widget extension a new push token: the old one gets `410
    /// Unregistered` from the sandbox, and the extension hands the new one over.
    public func rotateWidgetToken(device id: String) {
        guard let device = device(id), let (old, new) = device.rotateWidgetToken() else { return }
        sandbox(of: device).markUnregistered(token: old, at: device.clock())
        perform([.registerWidgets(new)], for: id)
    }

    /// The device's app starts a card itself (its user started shopping): see
    /// ``SimulatedDevice/startLocally(attributesType:attributes:contentState:channelID:)``.
    public func startLocally(
        device id: String, attributesType: String, attributes: JSONValue, contentState: JSONValue, channelID: String?, start: Date? = nil,
        style: ReportedActivityStyle = .standard
    ) {
        guard let device = device(id) else { return }
        perform(
            device.startLocally(
                attributesType: attributesType, attributes: attributes, contentState: contentState, channelID: channelID, start: start,
                style: style),
            for: id)
    }

    /// Time passes on the device (``SimulatedDevice/tick(now:)``), and its app does what follows
    /// (a scheduled activity the system started is registered and reported active).
    public func tick(device id: String) {
        guard let device = device(id) else { return }
        perform(device.tick(), for: id)
    }

    /// The person leaves the app on the device: its transient activities end and are reported.
    public func leaveApp(device id: String) {
        guard let device = device(id) else { return }
        perform(device.leaveApp(), for: id)
    }

    /// The user presses `button` on the card of `contextKey` (``SimulatedDevice/press(_:contextKey:)``);
    /// the app runs its intent through the real API and pulls the card.
    public func press(_ button: CardButton, device id: String, contextKey: String) {
        guard let device = device(id) else { return }
        perform(device.press(button, contextKey: contextKey), for: id)
    }

    /// The app comes to the foreground: it pulls each of its activities' contexts.
    public func foreground(device id: String) {
        guard let device = device(id) else { return }
        let actions = device.activities.filter(\.isVisible).map { AppAction.pull(contextKey: $0.contextKey, sinceRev: $0.rev) }
        perform(actions, for: id)
    }

    /// Delivers what is held back for reordering and waits until every delivery and app call
    /// in progress finished (at most `timeout`); false on timeout.
    ///
    /// The default outlasts an app call's own timeout (``LivelineClient``'s 30 s), so a slow
    /// server on a loaded machine is waited for rather than taken for one that answered.
    @discardableResult
    public func settle(timeout: TimeInterval = 35) async -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        repeat {
            let held: [(String, [AcceptedPush])] = state.withLock { state in
                var out: [(String, [AcceptedPush])] = []
                for (id, member) in state.members where !member.held.isEmpty {
                    var shuffled = member.held
                    shuffled.shuffle(using: &state.random)
                    out.append((id, shuffled))
                    state.members[id]?.held = []
                }
                return out
            }
            for (id, pushes) in held { deliver(pushes, to: id) }
            if held.isEmpty && state.withLock({ $0.pending }) == 0 { return true }
            try? await Task.sleep(for: .milliseconds(5))
        } while Date() < deadline
        return false
    }

    // MARK: Delivery

    /// A push a sandbox serving `environments` accepted: it reaches the devices of those
    /// environments only.
    private func accepted(_ push: AcceptedPush, environments: Set<PushEnvironment>) {
        let targets: [String] = state.withLock { state in
            func served(_ member: Member) -> Bool { environments.contains(member.device.configuration.environment) }
            if let token = push.token {
                guard let id = state.tokens[token], let member = state.members[id], served(member) else { return [] }
                return [id]
            }
            guard let channel = push.channelID else { return [] }
            return state.members.values.filter { member in
                served(member) && member.device.activities.contains { $0.channelID == channel && $0.isVisible }
            }.map(\.device.id).sorted()
        }
        for id in targets { route(push, to: id) }
    }

    private func route(_ push: AcceptedPush, to id: String) {
        enum Route { case lost, stored(replaced: Bool), held, now([AcceptedPush]) }
        let route: Route = state.withLock { state in
            guard var member = state.members[id] else { return .lost }
            defer { state.members[id] = member }
            let faults = state.faults
            if faults.dropShare > 0, Double.random(in: 0..<1, using: &state.random) < faults.dropShare { return .lost }
            if !member.online {
                let replaced = member.stored != nil
                member.stored = push
                return .stored(replaced: replaced)
            }
            if faults.reorderWindow > 1 {
                member.held.append(push)
                guard member.held.count >= faults.reorderWindow else { return .held }
                var batch = member.held
                batch.shuffle(using: &state.random)
                member.held = []
                return .now(batch)
            }
            return .now([push])
        }
        let faults = self.faults
        switch route {
        case .lost:
            device(id)?.note(
                .dropped, "lost on the way (network fault: drop share \(faults.dropShare), seed \(faults.seed)): push \(push.apnsID) never delivered")
        case .stored(let replaced): if replaced { device(id)?.note(.dropped, "offline: APNs keeps only the latest push, an older one is replaced") }
        case .held:
            device(id)?.note(
                .event,
                "held back (network fault: reorder window \(faults.reorderWindow), seed \(faults.seed)): push \(push.apnsID) comes out of order")
        case .now(let pushes):
            if pushes.count > 1 {
                device(id)?.note(
                    .event, "delivered out of order (network fault: seed \(faults.seed)): \(pushes.map(\.apnsID).joined(separator: ", "))")
            }
            deliver(pushes, to: id)
        }
    }

    private func deliver(_ pushes: [AcceptedPush], to id: String) {
        state.withLock { $0.pending += 1 }
        let work: @Sendable () -> Void = { [self] in
            if let device = device(id) {
                let pulls = state.withLock { $0.pullsOnWake }
                for push in pushes {
                    perform(device.receive(push).filter { if case .pull = $0 { pulls } else { true } }, for: id)
                }
            }
            state.withLock { $0.pending -= 1 }
        }
        if let delay = faults.delay {
            device(id)?.note(
                .event, "delayed \(delay) (network fault: seed \(faults.seed)): \(pushes.map(\.apnsID).joined(separator: ", "))")
            Scheduler.after(delay, on: queue, work)
        } else {
            queue.async(execute: work)
        }
    }

    // MARK: The app

    private func perform(_ actions: [AppAction], for id: String) {
        guard !actions.isEmpty, let member = state.withLock({ $0.members[id] }) else { return }
        // Tokens must be known to the sandbox before the server may send to them.
        let tokens = actions.compactMap { action -> String? in
            switch action {
            case .register(_, let token, _, _, _): token
            case .registerWidgets(let registration): registration.token
            default: nil
            }
        }
        for token in tokens {
            sandbox(of: member.device).registerDevice(token: token)
            state.withLock { $0.tokens[token] = id }
        }
        guard let client = member.client else { return }
        state.withLock { $0.pending += 1 }
        Task { [self] in
            for action in actions { await run(action, device: member.device, client: client) }
            state.withLock { $0.pending -= 1 }
        }
    }

    /// Tries of one registration before the app gives up (until its next launch), the first wait
    /// between them (doubling), and the longest wait: about 35 s of trying in all.
    public static let registrationTries = 20
    public static let registrationBackoff: Duration = .milliseconds(250)
    public static let registrationBackoffLimit: Duration = .seconds(2)

    private func run(_ action: AppAction, device: SimulatedDevice, client: LivelineClient) async {
        do {
            switch action {
            case .register(let kind, let token, let contextKey, let type, let activityID):
                let frequent = device.configuration.frequentUpdatesAllowed
                let started = ContinuousClock.now
                let what = contextKey.map { " for \($0)" } ?? type.map { " for \($0)" } ?? ""
                let fingerprint = type.flatMap { device.registry.contract(named: $0)?.fingerprint }
                // A server that cannot be reached is tried again, as a real app does on its next
                // launch (here: with a backoff), each try logged.
                var wait = Self.registrationBackoff
                for attempt in 1...Self.registrationTries {
                    do {
                        // The app says which shape of its type it was built with.
                        _ = try await client.register(
                            kind, token: token, contextKey: contextKey, attributesType: type, environment: device.configuration.environment,
                            frequentPushesEnabled: frequent, contractFingerprint: fingerprint, activityID: activityID)
                        break
                    } catch {
                        guard attempt < Self.registrationTries else { throw error }
                        device.note(
                            .event,
                            "app: registering its \(kind.rawValue) token\(what) failed (try \(attempt) of \(Self.registrationTries)): \(error); trying again in \(wait)",
                            contextKey: contextKey)
                        try? await Task.sleep(for: wait)
                        wait = min(wait * 2, Self.registrationBackoffLimit)
                    }
                }
                device.note(.event, "app registered its \(kind.rawValue) token\(what) in \(ContinuousClock.now - started)", contextKey: contextKey)
            case .pull(let contextKey, let sinceRev):
                switch try await client.pull(contextKey: contextKey, sinceRev: sinceRev) {
                case .unchanged(let rev):
                    device.note(.event, "app pulled: unchanged at rev \(rev)", contextKey: contextKey)
                case .snapshot(let snapshot):
                    for next in device.applyPull(
                        contextKey: contextKey, rev: snapshot.rev, contentState: snapshot.state, ended: snapshot.ended,
                        dismissalDate: snapshot.dismissalDate
                    ) {
                        await run(next, device: device, client: client)
                    }
                }
            case .registerWidgets(let registration):
                // What its `WidgetPushHandler` does with a token (docs/devices.md, "Widgets").
                _ = try await client.register(widgets: registration, environment: device.configuration.environment)
                device.note(.event, "widget extension registered its \(registration)")
            case .reloadWidget(let kind):
                await reloadWidget(kind: kind, device: device, client: client)
            case .receipt(let contextKey, let rev):
                _ = try await client.reportReceipt(contextKey: contextKey, rev: rev)
            case .activity(let contextKey, let state, let startsAt, let style, let activityID):
                _ = try await client.reportActivity(contextKey: contextKey, state: state, startsAt: startsAt, style: style, activityID: activityID)
                device.note(.event, "app reported its activity \(state.rawValue)\(style == .transient ? " (transient)" : "")", contextKey: contextKey)
            case .dismissed(let contextKey):
                _ = try await client.reportDismissed(contextKey: contextKey)
                device.note(.event, "app reported the dismissal", contextKey: contextKey)
            case .intent(let contextKey, let intent, let sinceRev):
                let answer = try await intent.perform(client, device.configuration)
                device.note(.event, "app \(intent.name) through the API: \(answer)", contextKey: contextKey)
                await run(.pull(contextKey: contextKey, sinceRev: sinceRev), device: device, client: client)
            }
        } catch {
            device.note(.event, "app: \(action) failed: \(error)", contextKey: nil)
        }
    }
}

extension DeviceFleet {
    /// The timeline provider of the widget of `kind` reads each context the widget shows through
    /// the SDK (`?since_rev=` of what it shows), and the widget shows what it read.
    private func reloadWidget(kind: String, device: SimulatedDevice, client: LivelineClient) async {
        guard let widget = device.widget(kind: kind) else { return }
        for key in widget.contextKeys {
            do {
                switch try await client.pull(contextKey: key, sinceRev: widget.shown[key]) {
                case .unchanged(let rev): device.showInWidget(kind: kind, contextKey: key, rev: rev)
                case .snapshot(let snapshot): device.showInWidget(kind: kind, contextKey: key, rev: snapshot.rev, ended: snapshot.ended)
                }
            } catch {
                device.note(.event, "widget \(kind) reloaded: \(key) could not be read: \(error)", contextKey: key)
            }
        }
    }
}

extension SimulatedDevice {
    /// Adds a line to the log from outside a decision (the fleet, the app).
    func note(_ verdict: DeviceLogEntry.Verdict, _ message: String, contextKey: String? = nil) {
        appendLog(DeviceLogEntry(at: clock(), verdict: verdict, contextKey: contextKey, message: message))
    }
}
