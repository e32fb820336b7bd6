import Foundation
import LivelineClient
import LivelineCrypto
import LivelineDevices
import LivelineModel
import LivelineSandbox
import LivelineShoppingModel
import LivelineStore
import LivelineTestSupport
import LivelineTransitModel
import Synchronization
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// The crash loop (`docs/reliability.md`, "Crash loop"): clients send a stream of changes
/// (trip contexts through `/v1`, their starts, shopping items, notifies) while `liveline serve` is
/// killed with SIGKILL ten times at random moments and started again on the same data and port.
/// The test's APNs sandbox (in this process) outlives every kill and records each push it
/// accepted; four simulated iPhones take them. Afterwards every change answered 2xx is in the
/// database, every card equals the truth after its next pull, no device ever had a second card
/// for one start, and the pushes the kills made go out twice are counted against the outbox rows
/// in flight at the kills. On SQLite, and on PostgreSQL with `LIVELINE_TEST_BACKEND=postgres`.
@Suite struct CrashLoopTests {
    static let adminKey = "crash-loop-admin-key-0123456789"
    static let week = "2026-01-05"
    static let kills = 10
    static let trips = 40
    static let devices = ["dennis-phone", "dennis-ipad", "jaqueline-phone", "jaqueline-ipad"]

    /// The child's settings: APNs = the test's sandbox; a short lease (rows in flight at a kill
    /// go out again 5 s after their claim), no quiet-change debounce, budgets that never bind.
    static func environment(_ sandbox: APNSSandbox) -> [String: String] {
        [
            "LIVELINE_ADMIN_KEY": adminKey,
            "LIVELINE_APNS_KEY_PATH": sandbox.keyFile.path, "LIVELINE_APNS_KEY_ID": sandbox.keyID,
            "LIVELINE_APNS_TEAM_ID": sandbox.teamID, "LIVELINE_APNS_HOST": "127.0.0.1",
            "LIVELINE_APNS_PORT": String(sandbox.devicePort), "LIVELINE_APNS_MANAGEMENT_PORT": String(sandbox.managementPort),
            "LIVELINE_APNS_CA_FILE": sandbox.certificateFile.path,
            "LIVELINE_OUTBOX_LEASE_S": "5", "LIVELINE_PUSH_MIN_INTERVAL_MS": "250", "LIVELINE_QUIET_DEBOUNCE_S": "0",
            "LIVELINE_START_BUDGET": "1000", "LIVELINE_PRIORITY_BUDGET": "1000", "LIVELINE_DATABASE_POOL": "4",
        ]
    }

    /// One request; nil when no answer came (the server was down or died under it). Counted in `ledger`.
    static func call(
        _ server: CrashLoopServer, _ method: String, _ path: String, bearer: String, json: String? = nil, ledger: CrashLoopLedger
    ) -> TestHTTPConnection.Response? {
        do {
            let response = try TestHTTPConnection(port: server.port, timeout: 15).request(
                method, path, headers: ["Authorization": "Bearer \(bearer)"], body: json.map { Array($0.utf8) })
            ledger.sent(response.status, what: "\(method) \(path): \(response.text.prefix(200))")
            return response
        } catch {
            ledger.sent(nil, what: "\(method) \(path)")
            usleep(50_000)  // down: the next try comes a little later
            return nil
        }
    }

    static func acknowledged(_ response: TestHTTPConnection.Response?) -> TestHTTPConnection.Response? {
        response.flatMap { (200..<300).contains($0.status) ? $0 : nil }
    }

    /// What one accepted push is, for telling a push sent again from a new one: a start or an
    /// alert by its target and bytes (they are rendered once, when queued); an update or end by
    /// its target, event and content state (rendered when sent, with a new timestamp each time).
    static func identity(_ push: AcceptedPush) -> String {
        let target = push.token.map { "token \($0)" } ?? push.channelID.map { "channel \($0)" } ?? "?"
        guard let root = try? JSONValue(json: Data(push.payload)).objectValue, let aps = root["aps"]?.objectValue,
            case .string(let event)? = aps["event"], event == "update" || event == "end"
        else { return "\(target) \(push.payloadText)" }
        return "\(target) \(event) \(aps["content-state"].map { String(decoding: $0.compactJSON, as: UTF8.self) } ?? "")"
    }

    @Test func everyAcknowledgedChangeSurvivesTenSIGKILLsAndNoDeviceGetsASecondCard() async throws {
        let seed = ProcessInfo.processInfo.environment["LIVELINE_CRASH_LOOP_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...999_999)
        let backend = TestBackend.isPostgres ? "PostgreSQL" : "SQLite"
        print("crash loop on \(backend): seed \(seed) (LIVELINE_CRASH_LOOP_SEED=\(seed) replays the kill times)")
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-crash-loop-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let data = folder.appendingPathComponent("data")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        let sandbox = try APNSSandbox.start(SandboxConfiguration(folder: folder.appendingPathComponent("sandbox")))
        defer { sandbox.stop() }
        let accepted = CrashLoopPushLog()
        let observation = sandbox.observeAccepted { push in accepted.append(push) }
        defer { sandbox.stopObserving(observation) }

        var environment = Self.environment(sandbox)
        let store: Store
        var dropSchema: (@Sendable () -> Void)?
        if TestBackend.isPostgres {
            let (url, drop) = try TestPostgres.freshURL()
            dropSchema = drop
            environment["LIVELINE_DATABASE_URL"] = url
            store = try Store.open(PostgresDatabase(settings: PostgresSettings(url: url), poolSize: 2))
        } else {
            store = try Store.openSQLite(folder: data)
        }
        defer { dropSchema?() }
        let dennisBearer = SecureRandom.token(prefix: "ll_")
        let herBearer = SecureRandom.token(prefix: "ll_")
        let dennis = try store.accounts.createUser(
            household: "Fisch", name: "Dennis", avatarTint: "azure", emoji: "🐟", locale: "de", tokenHash: SHA256.hex(dennisBearer), now: Date())
        let jaqueline = try store.accounts.createUser(
            household: "Fisch", name: "Jaqueline", avatarTint: "coral", emoji: "🐠", locale: "de", tokenHash: SHA256.hex(herBearer), now: Date())
        #expect(dennis.householdID == jaqueline.householdID)
        let bearers = [dennis.id.rawValue: dennisBearer, jaqueline.id.rawValue: herBearer]

        let server = CrashLoopServer(data: data, folder: folder, environment: environment)
        try server.start()
        defer { server.stop() }
        TestLogs.recordServerSecrets(adminKey: Self.adminKey, dataDirectory: data)

        // Four iPhones, launched: their apps registered their tokens.
        let session = URLSession(configuration: .ephemeral)
        let port = server.port
        func client(_ bearer: String, _ device: String) -> LivelineClient {
            LivelineClient(baseURL: URL(string: "http://127.0.0.1:\(port)")!, bearerToken: bearer, deviceID: device, session: session, timeout: 20)
        }
        let fleet = DeviceFleet(sandbox: sandbox)
        defer { fleet.detach() }
        var rules = DeviceRules()
        rules.maximumActivities = 100
        rules.startBudget = 1000
        rules.priorityBudget = 1000
        var phones: [SimulatedDevice] = []
        for id in Self.devices {
            let user = id.hasPrefix("dennis") ? dennis : jaqueline
            let device = SimulatedDevice(
                DeviceConfiguration(id: id, userID: user.id.rawValue, householdID: user.householdID.rawValue), rules: rules, registry: .builtIn)
            fleet.add(device, client: client(bearers[user.id.rawValue]!, id))
            phones.append(device)
        }
        let launched = await eventually(timeout: 60) {
            await fleet.settle(timeout: 1)
            return phones.allSatisfy { phone in
                phone.log.filter { $0.message.hasPrefix("app registered its") }.count >= 1 + phone.startTokens.count
            }
        }
        try #require(launched, "the apps registered their tokens: \(phones.map { $0.messages().suffix(3) })")

        // The shopping list, and Dennis shopping: the household's other devices get the card by
        // push-to-start; his phone's app starts its own, following the week's channel.
        let ledger = CrashLoopLedger()
        let dennisClient = client(dennisBearer, "dennis-phone")
        for label in ["Milch", "Brot", "Käse"] {
            let item = try await dennisClient.addShoppingItem(week: Self.week, label: label)
            ledger.added(item: item.item.id, label: label)
        }
        let shopping = try await dennisClient.startShopping(week: Self.week)
        let shoppingKey = shopping.contextKey
        ledger.started(
            CrashLoopLedger.StartAnswer(
                key: shoppingKey, outcomes: Dictionary(shopping.starts.compactMap { start in start.deviceId.map { ($0, start.outcome) } }) { $1 }))
        if !shopping.starts.contains(where: { $0.deviceId == "dennis-phone" && $0.outcome == "queued" }) {
            let state = try #require(try await dennisClient.shoppingWeek(Self.week).state)
            fleet.startLocally(
                device: "dennis-phone", attributesType: ShoppingActivityAttributes.typeName, attributes: ["week": .string(Self.week)],
                contentState: try JSONValue(json: JSONEncoder().encode(state)), channelID: shopping.channelId)
        }

        // APNs answers each push 250 ms after accepting it: pushes are in flight when the kills come.
        sandbox.setFaults(SandboxFaults(seed: seed, latency: .milliseconds(250)))
        let inFlight = CrashLoopInFlight()
        let loopStarted = Date()
        try await offThePool {
            let group = DispatchGroup()
            func run(_ name: String, _ work: @escaping @Sendable () throws -> Void) {
                group.enter()
                Thread.detachNewThread {
                    do { try work() } catch { ledger.problem("\(name): \(error)") }
                    group.leave()
                }
            }
            // Trip contexts, each created, then started on both users' devices (the start sent
            // again until it is answered; now and then an earlier one again: never a second card).
            run("starter") {
                var random = SplitMix64(seed: seed &+ 1)
                var created = 0
                var round = 0
                while ledger.isRunning {
                    round += 1
                    if round % 3 == 0 || created == Self.trips, let key = ledger.createdTrips.randomElement(using: &random) {
                        try Self.start(key, users: [dennis.id.rawValue, jaqueline.id.rawValue], server: server, ledger: ledger)
                    } else if created < Self.trips {
                        let key = "trip:cl-\(created)"
                        var made = false
                        while !made && ledger.isRunning {
                            ledger.willWrite(key: key, delay: 0)
                            if let response = Self.acknowledged(
                                Self.call(
                                    server, "PUT", "/v1/contexts/\(key)", bearer: Self.adminKey, json: DeviceHarness.trip("cl-\(created)", delay: 0),
                                    ledger: ledger)),
                                let rev = response.json?["rev"] as? Int
                            {
                                ledger.wrote(CrashLoopLedger.ContextWrite(key: key, rev: rev, delay: 0))
                                made = true
                            }
                        }
                        guard made else { break }
                        created += 1
                        ledger.created(trip: key)
                        try Self.start(key, users: [dennis.id.rawValue, jaqueline.id.rawValue], server: server, ledger: ledger)
                    }
                    usleep(UInt32.random(in: 500_000...1_100_000, using: &random))
                }
            }
            // Two writers change the trips, each its own half, one change after the other.
            for writer in 0..<2 {
                run("trip writer \(writer)") {
                    var random = SplitMix64(seed: seed &+ 10 &+ UInt64(writer))
                    var delay = writer
                    while ledger.isRunning {
                        let keys = ledger.createdTrips.filter { (Int($0.split(separator: "-").last ?? "") ?? 0) % 2 == writer }
                        guard let key = keys.randomElement(using: &random) else {
                            usleep(50_000)
                            continue
                        }
                        delay += 2
                        ledger.willWrite(key: key, delay: delay)
                        let trip = DeviceHarness.trip(String(key.dropFirst("trip:".count)), delay: delay)
                        if let response = Self.acknowledged(
                            Self.call(server, "PUT", "/v1/contexts/\(key)", bearer: Self.adminKey, json: trip, ledger: ledger)),
                            let rev = response.json?["rev"] as? Int
                        {
                            ledger.wrote(CrashLoopLedger.ContextWrite(key: key, rev: rev, delay: delay))
                        }
                        usleep(40_000)
                    }
                }
            }
            // Shopping: she adds items from home, he checks them off in the shop.
            run("shopping") {
                var random = SplitMix64(seed: seed &+ 20)
                var count = 0
                while ledger.isRunning {
                    count += 1
                    if count % 3 != 0 {
                        let label = "Artikel \(count)"
                        if let response = Self.acknowledged(
                            Self.call(
                                server, "POST", "/api/shopping/\(Self.week)/items", bearer: herBearer, json: #"{"label":"\#(label)"}"#, ledger: ledger
                            )),
                            let id = response.json?["id"] as? Int
                        {
                            ledger.added(item: id, label: label)
                        }
                    } else if let id = ledger.openItem(using: &random) {
                        if Self.acknowledged(
                            Self.call(server, "PATCH", "/api/shopping/items/\(id)", bearer: dennisBearer, json: #"{"done":true}"#, ledger: ledger))
                            != nil
                        {
                            ledger.checked(item: id)
                        }
                    }
                    usleep(150_000)
                }
            }
            // Notifies, to each user in turn.
            run("notify") {
                var count = 0
                while ledger.isRunning {
                    count += 1
                    let user = count % 2 == 0 ? dennis.id.rawValue : jaqueline.id.rawValue
                    let title = "Nachricht \(count)"
                    let key = "crash-loop-\(count)"
                    if let response = Self.acknowledged(
                        Self.call(
                            server, "POST", "/v1/notify", bearer: Self.adminKey,
                            json: #"{"userId":\#(user),"title":"\#(title)","dedupeKey":"\#(key)"}"#, ledger: ledger))
                    {
                        if response.json?["created"] as? Bool != true { ledger.problem("notify \(key) not created: \(response.text)") }
                        ledger.notified(CrashLoopLedger.Notification(userID: user, dedupeKey: key, title: title))
                    }
                    usleep(300_000)
                }
            }
            // The killer: ten SIGKILLs at random moments, a new life on the same data and port after each.
            run("killer") {
                defer { ledger.stop() }
                var random = SplitMix64(seed: seed)
                for kill in 1...Self.kills {
                    usleep(UInt32.random(in: 1_500_000...4_000_000, using: &random))
                    if kill % 3 == 0 {
                        // Every third kill comes just after a start was queued: its push is in flight.
                        let queued = ledger.queuedStarts
                        let deadline = Date().addingTimeInterval(5)
                        while ledger.queuedStarts == queued && Date() < deadline { usleep(5_000) }
                        usleep(UInt32.random(in: 20_000...200_000, using: &random))
                    }
                    try server.kill()
                    try inFlight.note(store: store, devices: Self.devices.count)
                    try server.start()
                }
                usleep(2_000_000)
            }
            group.wait()
        }
        let loopSeconds = Date().timeIntervalSince(loopStarted)
        sandbox.setFaults(SandboxFaults(seed: seed))

        // Drained: nothing due or leased in the outbox, every delivery and app call done — twice in a row.
        let drainStarted = Date()
        var quiet = 0
        let drained = await eventually(timeout: 120) {
            let settled = await fleet.settle(timeout: 5)
            let depth = try? store.outbox.depth(now: Date().addingTimeInterval(3600))
            quiet = settled && depth.map { $0.due == 0 && $0.leased == 0 } == true ? quiet + 1 : 0
            return quiet >= 2
        }
        let drainSeconds = Date().timeIntervalSince(drainStarted)
        server.notePeakMemory()
        let depth = try store.outbox.depth(now: Date().addingTimeInterval(3600))
        #expect(drained, "the outbox drained: \(depth)")
        #expect(depth.dead == 0, "no dead letters: \(depth.dead)")
        let sent = ledger.snapshot
        #expect(sent.problems.isEmpty, "\(sent.problems)")
        #expect(server.lives == Self.kills + 1)
        #expect(sent.refused.isEmpty, "every answer was 2xx: \(sent.refused) \(sent.refusals)")

        // Every acknowledged change is in the database.
        let admin = { (path: String) in
            try TestHTTPConnection(port: server.port).request("GET", path, headers: ["Authorization": "Bearer \(Self.adminKey)"])
        }
        for key in Set(sent.writes.map(\.key)).sorted() {
            let writes = sent.writes.filter { $0.key == key }
            let revisions = Set(try store.contexts.revisions(key: key, limit: 100_000).map(\.rev))
            let lost = writes.filter { !revisions.contains($0.rev) }
            #expect(lost.isEmpty, "\(key): acknowledged revisions missing: \(lost)")
            let truth = try admin("/v1/contexts/\(key)")
            let rev = try #require(truth.json?["rev"] as? Int, "\(truth.text)")
            let last = writes.max { $0.rev < $1.rev }!
            #expect(rev >= last.rev, "\(key): rev \(rev) is behind the acknowledged \(last.rev)")
            // The state carries the last acknowledged delay or one sent after it (unanswered, applied).
            let delays = sent.sentDelays[key] ?? []
            let since = delays.lastIndex(of: last.delay).map { Array(delays[$0...]) } ?? []
            let delay = ((truth.json?["contentState"] as? [String: Any])?["delay"] as? Int) ?? -1
            #expect(since.contains(delay), "\(key): delay \(delay), acknowledged \(last.delay), sent since \(since)")
        }
        let week = try await dennisClient.shoppingWeek(Self.week)
        let items = Dictionary((week.items ?? []).map { ($0.id, $0) }) { $1 }
        for (id, label) in sent.items { #expect(items[id]?.label == label, "acknowledged item \(id) (\(label)) is on the list") }
        for id in sent.checked { #expect(items[id]?.done == true, "acknowledged check-off of item \(id) is kept") }
        for (userID, bearer) in bearers {
            let inbox = try await client(bearer, "inbox").notifications()
            let keys = inbox.map(\.dedupeKey)
            #expect(Set(keys).count == keys.count, "no notification twice in the inbox")
            for notification in sent.notifications where notification.userID == userID {
                #expect(keys.contains(notification.dedupeKey), "acknowledged notify \(notification.dedupeKey) is in the inbox")
                for phone in phones where phone.configuration.userID == userID {
                    // Shown once: a push the kills sent twice carries the record's collapse id.
                    let shown = phone.notifications.filter { $0.title == notification.title }.count
                    #expect(shown == 1, "\(phone.id) showed \(notification.title) \(shown) times")
                }
            }
        }

        // Starts: every acknowledged one reached its device once; no device ever had a second card.
        var queued: [String: Int] = [:]
        for answer in sent.starts {
            for (device, outcome) in answer.outcomes where outcome == "queued" { queued["\(answer.key) \(device)", default: 0] += 1 }
        }
        #expect(queued.values.allSatisfy { $0 == 1 }, "a start queued twice for one device: \(queued.filter { $0.value > 1 })")
        var cards = 0
        for phone in phones {
            let byKey = Dictionary(grouping: phone.activities, by: \.contextKey)
            cards += byKey.count
            for (key, activities) in byKey {
                #expect(activities.count == 1, "\(phone.id) had \(activities.count) cards for \(key): \(phone.messages(key).suffix(12))")
            }
            #expect(!phone.logged("SECOND card"), "\(phone.id): \(phone.messages().filter { $0.contains("SECOND") })")
            for key in queued.keys where key.hasSuffix(" \(phone.id)") {
                let context = String(key.dropLast(phone.id.count + 1))
                #expect(byKey[context] != nil, "\(phone.id) got the acknowledged start of \(context)")
            }
        }

        // Every card equals the truth: counted as the pushes left it, asserted after the next pull.
        func truth(_ phone: SimulatedDevice, _ key: String) async throws -> JSONValue? {
            let bearer = bearers[phone.configuration.userID]!
            guard case .snapshot(let snapshot) = try await client(bearer, phone.id).pull(contextKey: key, sinceRev: nil) else { return nil }
            return snapshot.state
        }
        var pushedRight = 0
        for phone in phones {
            for activity in phone.activities where activity.isVisible {
                if try await truth(phone, activity.contextKey) == activity.contentState { pushedRight += 1 }
            }
            fleet.foreground(device: phone.id)
        }
        await fleet.settle(timeout: 30)
        for phone in phones {
            for activity in phone.activities where activity.isVisible {
                let expected = try await truth(phone, activity.contextKey)
                #expect(activity.contentState == expected, "\(phone.id) \(activity.contextKey): \(phone.messages(activity.contextKey).suffix(6))")
            }
        }

        // The pushes the kills sent twice: accepted by APNs, their answers never recorded (the
        // process died first), and the same push accepted again later. Bounded by the rows in flight.
        let pushes = accepted.all
        let recorded = Set(
            try store.database.read { transaction in
                try transaction.query("SELECT apns_id FROM deliveries WHERE apns_id IS NOT NULL").map { try $0.string("apns_id") }
            })
        let unrecorded = pushes.filter { !recorded.contains($0.apnsID) }
        var seen: [String: Int] = [:]
        var repeats = 0
        var killDuplicates: [String: Int] = [:]
        let unrecordedIDs = Set(unrecorded.map(\.apnsID))
        var firstIsUnrecorded: [String: Bool] = [:]
        for push in pushes {
            let identity = Self.identity(push)
            if let count = seen[identity] {
                repeats += 1
                if firstIsUnrecorded[identity] == true {
                    let kind = identity.contains(#""event":"start""#) ? "start" : push.pushType == "alert" ? "alert" : "update"
                    killDuplicates[kind, default: 0] += 1
                }
                seen[identity] = count + 1
            } else {
                seen[identity] = 1
                firstIsUnrecorded[identity] = unrecordedIDs.contains(push.apnsID)
            }
        }
        let duplicates = killDuplicates.values.reduce(0, +)
        let flight = (rows: inFlight.rows, sendBound: inFlight.sendBound, starts: inFlight.starts)
        #expect(unrecorded.count <= flight.sendBound, "pushes without a recorded answer: \(unrecorded.count), in flight at most \(flight.sendBound)")
        #expect(duplicates <= unrecorded.count)
        #expect(killDuplicates["start", default: 0] == 0, "a start sent twice")

        let figures = """
            crash loop on \(backend), seed \(seed): \(sent.sent) changes sent in \(String(format: "%.1f", loopSeconds)) s \
            (\(sent.acknowledged) answered 2xx, \(sent.unanswered) unanswered), \(server.lives - 1) kills, \
            restarts \(String(format: "%.2f", server.startSeconds.dropFirst().reduce(0, +) / Double(max(1, server.startSeconds.count - 1)))) s on average; \
            \(sent.writes.count) context writes, \(sent.items.count) items, \(sent.checked.count) check-offs, \(sent.notifications.count) notifies, \
            \(sent.starts.count) start answers (\(queued.count) device starts queued, \(sent.starts.flatMap(\.outcomes.values).filter { $0 == "alreadyStarted" }.count) already started); \(pushes.count) pushes accepted, \(unrecorded.count) never recorded, \
            rows in flight at the kills \(flight.rows) (\(flight.starts) starts; ≤ \(flight.sendBound) pushes), duplicates caused by the kills \(duplicates) \
            (starts \(killDuplicates["start", default: 0]), alerts \(killDuplicates["alert", default: 0]), updates \(killDuplicates["update", default: 0])), \
            repeats of any kind \(repeats); drained in \(String(format: "%.1f", drainSeconds)) s; \(cards) cards, \(pushedRight) equal to the truth before the pull; \
            peak RSS of serve \(server.peakKilobytes / 1024) MB
            """
        print(figures)
    }

    /// Starts `key` on the users' devices (without a channel), sent again until it is answered.
    static func start(_ key: String, users: [Int], server: CrashLoopServer, ledger: CrashLoopLedger) throws {
        let body = #"{"userIds":\#(users),"alert":{"title":"Deine Fahrt"},"useChannel":false}"#
        while ledger.isRunning {
            guard let response = call(server, "POST", "/v1/contexts/\(key)/start", bearer: adminKey, json: body, ledger: ledger) else { continue }
            guard (200..<300).contains(response.status) else { return }
            var outcomes: [String: String] = [:]
            for start in response.json?["starts"] as? [[String: Any]] ?? [] {
                if let device = start["deviceId"] as? String, let outcome = start["outcome"] as? String { outcomes[device] = outcome }
            }
            ledger.started(CrashLoopLedger.StartAnswer(key: key, outcomes: outcomes))
            return
        }
    }
}
