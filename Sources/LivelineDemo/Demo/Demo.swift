import Dispatch
import Foundation
import Liveline
import LivelineCLI
import LivelineDevices
import LivelineServer
import LivelineShopping
import LivelineTransit

/// One run of `liveline demo` (docs/operations.md, "The demo"): the server on the embedded defaults with its
/// in-process APNs sandbox, on the demo clock; the household and its phones; the three stories;
/// and, at the end, the check of every phone against the server.
final class Demo: Sendable {
    let options: DemoOptions
    let folder: URL
    let clock: DemoClock
    /// Why the demo clock does not start at the wall clock's time, when it does not.
    let clockNote: String?
    let app: Application
    let household: DemoHousehold
    let stage: DemoStage
    let watcher: CardWatcher
    let realtime: DemoRealtime
    let timetable: DemoTimetable
    let context: CLIContext
    private let stories: ResultBox<Task<Void, Never>> = ResultBox()

    /// The demo clock's last time is kept here in a `--data` folder, so a demo on it later never
    /// goes back in time.
    static let clockFile = "demo-clock"

    /// Starts the server and launches the phones' apps; nothing is played yet.
    init(_ options: DemoOptions, context: CLIContext) throws {
        self.options = options
        self.context = context
        let folder =
            options.data
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("liveline-demo-\(UUID().uuidString.prefix(8).lowercased())")
        self.folder = folder
        var started: Application?
        var realtime: DemoRealtime?
        do {
            // The data folder holds the admin key and the database: for this user only.
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            timetable = try DemoTimetable.load()
            let kept = try? String(contentsOf: folder.appendingPathComponent(Self.clockFile), encoding: .utf8)
            let earlier = kept.flatMap { TimeInterval($0.trimmingCharacters(in: .whitespacesAndNewlines)) }.map(Date.init(timeIntervalSince1970:))
            let (start, note) = Self.start(after: max(Date(), earlier ?? .distantPast), timetable: timetable)
            clock = DemoClock(start: start, speed: options.speed)
            clockNote = note
            realtime = DemoRealtime(file: folder.appendingPathComponent("demo-realtime.pb"), clock: clock, timetable: timetable)
            try realtime!.start()
            self.realtime = realtime!
            let server = try Assembly.server(Self.configuration(options, folder: folder, realtime: realtime!.file), clock: clock.function)
            started = server.app
            app = server.app
            do {
                try app.start()
            } catch {
                throw CLIError("\(error). Pick another port with --port (0 picks a free one)")
            }
            guard let sandbox = server.sandbox else { throw CLIError("the server has no in-process APNs sandbox") }
            var rules = DeviceRules()
            // The demo starts cards far more often than a household would: the phones' budgets
            // of push-to-starts and of priority-10 updates do not bind (as for the end-to-end
            // tests' household); the server keeps its own (`docs/engine.md`, "Budgets and priority").
            rules.startBudget = 1_000_000
            rules.priorityBudget = 1000
            household = try DemoHousehold(app: app, sandbox: sandbox, clock: clock, rules: rules)
            let narrator = DemoNarrator(context: context, clock: clock)
            stage = DemoStage(household: household, clock: clock, narrator: narrator)
            watcher = CardWatcher(household: household, narrator: narrator)
            let household = self.household
            let store = app.store
            guard Self.blocking({ await household.launched(in: store, timeout: 40) }) else {
                household.fleet.detach()
                throw CLIError("the phones' apps could not register their tokens with the server")
            }
            if earlier != nil, let week = ShoppingWeek.containing(DemoNarrator.isoDay(clock.now))?.monday {
                Self.blocking { await household.endLeftovers(week: week) }
            }
        } catch {
            realtime?.stop()
            _ = started?.shutdown()
            if options.data == nil { try? FileManager.default.removeItem(at: folder) }
            throw error
        }
    }

    /// The server's configuration: the embedded defaults (SQLite in `folder`, the in-process
    /// APNs sandbox, the demo feed) on 127.0.0.1, with the demo's real-time file. Settings that
    /// mean a wait in real time are multiplied by the speed, so they last as long in real seconds
    /// as on a server (the lease, retries, a shopper's presence, the meal planning's TTL and think
    /// time); every change is pushed at once; the push-to-start budget does not bind.
    static func configuration(_ options: DemoOptions, folder: URL, realtime: URL) -> ServerConfiguration {
        var configuration = ServerConfiguration()
        let speed = options.speed
        configuration.host = "127.0.0.1"
        configuration.port = options.port
        configuration.dataDirectory = folder
        configuration.accessLog = "off"
        configuration.logLevel = .warning
        configuration.minimumPushInterval = 0
        configuration.quietChangeDebounce = 0
        configuration.startBudget = 1_000_000
        configuration.outboxLease = 30 * max(1, speed)
        configuration.orphanChannelGrace = 60 * max(1, speed)
        configuration.pushRetry.initialDelay = .milliseconds(Int(1000 * speed))
        configuration.pushRetry.maximumDelay = .seconds(Int(15 * 60 * speed))
        func scaled(_ value: Double, _ range: ClosedRange<Int>) -> String { String(min(range.upperBound, max(range.lowerBound, Int(value * speed)))) }
        configuration.environment = [
            "LIVELINE_GTFS_RT_URL": realtime.path,
            "LIVELINE_SHOPPING_PRESENCE_TIMEOUT_S": scaled(900, 10...86_400),
            "LIVELINE_COOKSUGGEST_TTL_S": scaled(7200, 60...8 * 3600),
            "LIVELINE_COOKSUGGEST_THINK_MS": scaled(2000, 0...600_000),
        ]
        return configuration
    }

    /// Where the demo clock starts: at `after` when a tram boards within 10 minutes of it;
    /// otherwise 3 minutes before the next tram (the line sleeps at night, and runs every one to
    /// two hours at times); on the recorded morning of the demo feed when its calendar has no
    /// tram in the next days. The note says why when it is not `after`.
    static func start(after: Date, timetable: DemoTimetable) -> (Date, String?) {
        if let ride = timetable.nextRide(after: after) {
            let wait = ride.departure.timeIntervalSince(after)
            if wait <= 10 * 60 { return (after, nil) }
            let start = ride.departure.addingTimeInterval(-3 * 60)
            return (start, "no tram leaves soon after \(DemoNarrator.minute(after)): it starts 3 minutes before the next one")
        }
        let recorded = timetable.recordedTripStart?.addingTimeInterval(-5 * 60) ?? after
        return (recorded, "the demo feed's calendar has no tram in the next days: it starts on the morning its real-time data was recorded")
    }

    // MARK: Playing

    /// Prints what runs where, then plays the stories (each on a loop, at once).
    func play() {
        let narrator = stage.narrator
        let base = "http://127.0.0.1:\(app.port)"
        narrator.line("liveline demo: household \(DemoHousehold.name) — Dennis and Jaqueline — with three simulated iPhones, three stories on a loop")
        narrator.line("  dashboard:  \(DemoCommand.dashboardLink(app))")
        narrator.line(
            "  server:     \(base), pushing to its in-process APNs sandbox; data in \(folder.path)\(options.data == nil ? " (deleted on exit)" : "")")
        narrator.line("  /v1 API:    the admin key is in \(folder.appendingPathComponent("admin-key").path) (docs/api.md)")
        narrator.line(
            "  demo clock: \(DemoNarrator.day(clock.start)) in Berlin, \(Self.speedText(options.speed)) real time\(clockNote.map { " (\($0))" } ?? "")"
        )
        narrator.line(
            "  phones:     "
                + household.phones.map { "\($0.id) (\($0.owner.user.name), iOS \($0.device.configuration.os))" }.joined(separator: ", "))
        narrator.line(
            "  \(options.duration.map { "stops after \($0) s or on Ctrl-C" } ?? "Ctrl-C stops it"); then every phone is checked against the server")
        watcher.start()
        let stage = self.stage
        let stories: [any DemoStory] = [
            ShoppingStory(stage: stage), DinnerStory(stage: stage), TramStory(stage: stage, timetable: timetable, realtime: realtime),
        ]
        self.stories.value = Task {
            await withTaskGroup(of: Void.self) { group in
                for story in stories { group.addTask { await story.play() } }
            }
        }
    }

    /// `10×`, `2.5×`.
    static func speedText(_ speed: Double) -> String {
        (speed.rounded() == speed ? String(Int(speed)) : String(format: "%g", speed)) + "×"
    }

    /// Stops the stories, checks every phone against the server, shuts everything down and
    /// removes a throw-away data folder; the exit code (0 when every card matches).
    func finish() -> Int32 {
        let narrator = stage.narrator
        stage.stop()
        if let stories = stories.value { Self.blocking { await stories.value } }
        clock.runAtRealTime()
        narrator.line("liveline demo: the stories stopped; checking that every phone shows the server's truth …")
        let household = self.household
        let verdicts = Self.blocking { [app] in
            await DemoTruthCheck.run(household, timeout: 20) { key in try? app.store.deliveries.lastDeliveredRev(contextKey: key) }
        }
        watcher.stop()
        let width = verdicts.map(\.phone.count).max() ?? 0
        let keyWidth = verdicts.map(\.contextKey.count).max() ?? 0
        for verdict in verdicts {
            narrator.line(
                "  \(verdict.matches ? "✔" : "✘") \(verdict.phone.padding(toLength: width, withPad: " ", startingAt: 0))  "
                    + "\(verdict.contextKey.padding(toLength: keyWidth, withPad: " ", startingAt: 0))  \(verdict.detail)")
        }
        let wrong = verdicts.filter { !$0.matches }
        let phones = Set(verdicts.map(\.phone)).count
        if wrong.isEmpty {
            narrator.line("liveline demo: every card matches: \(verdicts.count) cards on \(phones) phones show the server's truth")
        } else {
            narrator.line(
                "liveline demo: \(wrong.count) of \(verdicts.count) cards do not show the server's truth: "
                    + wrong.map { "\($0.phone) \($0.contextKey)" }.joined(separator: ", "))
        }
        realtime.stop()
        household.fleet.detach()
        let stopped = app.shutdown()
        if options.data != nil {
            try? String(Int(clock.now.timeIntervalSince1970.rounded(.up))).write(
                to: folder.appendingPathComponent(Self.clockFile), atomically: true, encoding: .utf8)
        } else {
            try? FileManager.default.removeItem(at: folder)
        }
        let code: Int32 = wrong.isEmpty ? 0 : 1
        guard stopped else {
            // As `serve`: a thread still works on the application, so the libraries' teardown
            // must not run under it.
            narrator.line("liveline demo: stopped (work still in flight was left behind)")
            fflush(nil)
            _exit(code)
        }
        narrator.line("liveline demo: stopped")
        return code
    }

    /// Runs `work` on a task and blocks this thread (not one of the cooperative pool's) until it
    /// is done.
    @discardableResult
    static func blocking<T: Sendable>(_ work: @escaping @Sendable () async -> T) -> T {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        Task {
            box.value = await work()
            done.signal()
        }
        done.wait()
        return box.value!
    }
}
