import Foundation
import LivelineLog
import LivelinePush
import LivelinePushWire
import LivelineSandbox
import LivelineServer
@testable import LivelineStore
import LivelineTestSupport
import LivelineTransitModel
import Testing

/// A full disk (`docs/reliability.md`, "Disk full"): a real server whose data folder is on a
/// small tmpfs of its own, filled up by a filler file. A write it cannot store answers 503
/// `storageFull` and changes nothing, reads keep working, the dispatcher waits without spinning,
/// the server says it once, and once the filler is deleted writes work again without a restart;
/// the file then passes `PRAGMA integrity_check` and holds every write that was answered 2xx.
@Suite struct DiskFullTests {
    static let watched = "trip:watched"
    /// What the data folder may grow by before it is full: room for some hundred writes.
    static let room = 4 << 20

    /// A ride whose stop name makes the state about 1.5 kB (well inside APNs' 4 kB payload).
    static func state(_ delay: Int, _ name: String) -> String {
        ContextAPITests.trip(delay: delay, stop: name + " " + String(repeating: "Haltestelle ", count: 120))
    }

    struct Line {
        var level: String
        var event: String
        var message: String
    }

    static func lines(_ sink: LogSink) -> [Line] {
        sink.lines.compactMap { text in
            guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else { return nil }
            return Line(
                level: object["level"] as? String ?? "", event: object["event"] as? String ?? "", message: object["message"] as? String ?? "")
        }
    }

    /// The dispatcher's writes refused for the full disk so far: its longest streak of failed
    /// claims (`claimFailed` says "(N in a row)", logged at 1, 2, 3, 4, 8, 16, …) plus its failed
    /// recordings (one line each).
    static func dispatcherFailures(_ lines: [Line]) -> Int {
        let full = lines.filter { $0.message.contains("disk is full") }
        let claims = full.filter { $0.event == "claimFailed" }.compactMap { line -> Int? in
            guard let range = line.message.range(of: #"\((\d+) in a row\)"#, options: .regularExpression) else { return nil }
            return Int(line.message[range].dropFirst().prefix { $0.isNumber })
        }
        return (claims.max() ?? 0) + full.filter { $0.event == "recordingFailed" }.count
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func fileSize(_ url: URL) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int) ?? 0
    }

    @Test(
        .enabled(if: !TestBackend.isPostgres, "with PostgreSQL the database is not in the data folder; this fills SQLite's"),
        .enabled(if: SmallDisk.mountPermitted, "this machine does not let the tests mount a tmpfs (needs root or CAP_SYS_ADMIN)"))
    func aFullDiskRefusesWritesWith503ChangingNothingReadsWorkAndWritesResumeOnceSpaceIsFreed() async throws {
        let disk = try SmallDisk(megabytes: 16)
        let folder = disk.root.appendingPathComponent("data")
        let sink = LogSink.inMemory()
        var running: ContextAPITests.Setup?
        defer {
            running?.stop(keepData: true)
            disk.unmount()
        }
        let configure: (inout ServerConfiguration) -> Void = { configuration in
            configuration.logSink = sink
            configuration.logLevel = .debug
            // The sandbox refuses the watched context's pushes while the disk fills: the dispatcher
            // keeps recording answers, so it writes while the disk is full too. It never gives up.
            configuration.pushRetry = RetryPolicy(initialDelay: .milliseconds(20), maximumDelay: .milliseconds(100), maximumAttempts: 1_000_000)
        }
        let setup = try ContextAPITests.Setup(folder: folder, configure: configure)
        running = setup
        let phone = try setup.device(0, contextKey: Self.watched, type: "TripLiveActivityAttributes")
        #expect(try setup.admin("PUT", "/v1/contexts/\(Self.watched)", json: Self.state(0, "start")).status == 201)
        #expect(await eventually { setup.contentStates(phone).last?["delay"] as? Int == 0 })
        setup.sandbox.setFaults(SandboxFaults(seed: 3, internalErrorShare: 1))

        // A reader holds its snapshot from here until the filler is deleted. A write restarts the
        // WAL (writes it again from its start, in the file's own space) only after a checkpoint
        // copied all of it; with this snapshot held no checkpoint copies past it, so after at most
        // one restart, at the first write, the WAL only grows. Otherwise SQLite rightly takes
        // writes again on a disk that is still full, and the full phase below could end by itself
        // (`docs/decisions/disk-full-test-holds-the-wal.md`).
        let pin = try SQLiteConnection(path: folder.appendingPathComponent("liveline.sqlite").path, readOnly: true)
        try pin.executeScript("BEGIN")
        _ = try pin.run("SELECT count(*) FROM contexts", [], collect: true)
        defer { pin.rollBackIfOpen() }

        // Fill: a new context and a change of the watched one, again and again, until ten writes
        // in a row were refused. Every answer is a success or 503 storageFull; a refused write
        // changed nothing (read back at once).
        try disk.fill(leaving: Self.room)
        var accepted: [String: Int] = [:]  // fill key → its delay
        var watchedRev = 1
        var watchedDelay = 0
        var acceptedWrites = 1
        var refusedWrites = 0
        var firstRefusalAfter: Int?
        var streak = 0
        var refusal: TestHTTPConnection.Response?
        var index = 0
        while streak < 10, index < 20_000 {
            index += 1
            let key = "trip:fill-\(index)"
            for (target, delay) in [(key, index), (Self.watched, index)] {
                let response = try setup.admin("PUT", "/v1/contexts/\(target)", json: Self.state(delay, target))
                if response.status == 200 || response.status == 201 {
                    acceptedWrites += 1
                    streak = 0
                    if target == Self.watched {
                        watchedRev += 1
                        watchedDelay = delay
                        #expect(response.json?["rev"] as? Int == watchedRev, "\(response.text)")
                    } else {
                        accepted[target] = delay
                    }
                    continue
                }
                refusedWrites += 1
                streak += 1
                firstRefusalAfter = firstRefusalAfter ?? acceptedWrites
                refusal = response
                #expect(response.status == 503 && response.errorCode == "storageFull", "\(response.status) \(response.text)")
                #expect(response.headers["retry-after"] == "30")
                let read = try setup.admin("GET", "/v1/contexts/\(target)")
                if target == Self.watched {
                    #expect(read.status == 200 && read.json?["rev"] as? Int == watchedRev, "\(read.text.prefix(300))")
                    #expect((read.json?["contentState"] as? [String: Any])?["delay"] as? Int == watchedDelay)
                } else {
                    #expect(read.status == 404, "a refused first write of \(target) left it behind: \(read.text.prefix(300))")
                }
            }
        }
        try #require(streak >= 10, "the disk never filled: \(acceptedWrites) writes accepted")
        let fullAt = ContinuousClock.now
        let message = try #require(refusal?.errorMessage)
        #expect(message.contains("disk is full") && message.contains("nothing of this request was changed"), "\(message)")
        let walAtFull = Self.fileSize(folder.appendingPathComponent("liveline.sqlite-wal"))
        let databaseAtFull = Self.fileSize(folder.appendingPathComponent("liveline.sqlite"))

        // Full: reads work; the dispatcher meets the full disk (its retries' answers cannot be
        // recorded) and waits with a backoff, saying so only at debug level.
        let read = try setup.admin("GET", "/v1/contexts/\(Self.watched)")
        #expect(read.status == 200 && read.json?["rev"] as? Int == watchedRev)
        if let (key, delay) = accepted.first {
            let fill = try setup.admin("GET", "/v1/contexts/\(key)")
            #expect(fill.status == 200 && (fill.json?["contentState"] as? [String: Any])?["delay"] as? Int == delay)
        }
        #expect(try setup.server.request("GET", "/api/me", token: setup.bearer).status == 200)
        #expect(try setup.server.request("GET", "/healthz").status == 200)
        let metrics = try setup.admin("GET", "/metrics")
        #expect(metrics.status == 200 && metrics.text.contains("liveline_storage_full 1"))
        // A few of its tries (one per 250 ms poll): it waits, it does not spin.
        #expect(await eventually { Self.dispatcherFailures(Self.lines(sink)) >= 4 }, "the dispatcher never met the full disk")
        #expect(try setup.admin("PUT", "/v1/contexts/\(Self.watched)", json: Self.state(-1, "still full")).errorCode == "storageFull")
        refusedWrites += 1
        let dispatcherAttemptsWhileFull = Self.dispatcherFailures(Self.lines(sink))
        let fullFor = Self.seconds(ContinuousClock.now - fullAt)
        #expect(Double(dispatcherAttemptsWhileFull) <= fullFor / 0.2 + 5, "\(dispatcherAttemptsWhileFull) tries in \(fullFor) s")
        let watchedRevAtFull = watchedRev

        // Freed: the next write goes through, without a restart; the dispatcher records what it
        // kept and brings the last state to the phone.
        setup.sandbox.setFaults(SandboxFaults(seed: 3))
        let freedAt = ContinuousClock.now
        try disk.free()
        pin.rollBackIfOpen()
        var refusedAfterFreeing = 0
        var acceptedAfterFreeing = 0
        let resumed = try await eventually(timeout: 10) {
            let response = try setup.admin("PUT", "/v1/contexts/\(Self.watched)", json: Self.state(100_000, "freed"))
            guard response.status == 200 else {
                refusedAfterFreeing += 1
                return false
            }
            watchedRev += 1
            watchedDelay = 100_000
            #expect(response.json?["rev"] as? Int == watchedRev)
            return true
        }
        let firstSuccess = ContinuousClock.now - freedAt
        #expect(resumed && refusedAfterFreeing == 0, "\(refusedAfterFreeing) writes refused after freeing")
        #expect(await eventually { setup.contentStates(phone).last?["delay"] as? Int == 100_000 }, "the dispatcher did not resume")
        let delivered = ContinuousClock.now - freedAt
        #expect(try await eventually { try setup.dispatcherIsIdle() })
        #expect(try setup.admin("GET", "/metrics").text.contains("liveline_storage_full 0"))
        // The episode ends with the first commit 5 s after the last refused write (small writes
        // that fit between refused ones near the edge do not end it): writes go on until then.
        let freedLine = try await eventually(timeout: 20) {
            let response = try setup.admin("PUT", "/v1/contexts/\(Self.watched)", json: Self.state(100_000, "freed"))
            #expect(response.status == 200, "\(response.text)")
            watchedRev += 1
            acceptedAfterFreeing += 1
            return Self.lines(sink).contains { $0.event == "storageFreed" }
        }
        #expect(freedLine)
        let freedLogged = ContinuousClock.now - freedAt

        // Said once each, at error and info; no 500 (handlerFailed), and the engine's retries
        // stayed at debug level.
        let log = Self.lines(sink)
        #expect(log.filter { $0.event == "storageFull" }.map(\.level) == ["error"], "\(log.filter { $0.event == "storageFull" })")
        #expect(log.filter { $0.event == "storageFreed" }.map(\.level) == ["info"])
        #expect(log.filter { $0.event == "handlerFailed" }.isEmpty)
        let loud = log.filter { ["warning", "error"].contains($0.level) && $0.event != "storageFull" }
        #expect(loud.isEmpty, "\(loud.map { "\($0.level) \($0.event): \($0.message)" })")

        // Restarted on the same folder: the file is sound and holds every write answered 2xx.
        setup.stop(keepData: true)
        running = nil
        let again = try ContextAPITests.Setup(folder: folder, configure: configure)
        running = again
        let check = try again.server.app.store.database.read { try $0.query("PRAGMA integrity_check") }
        #expect(check.map(\.values) == [[.text("ok")]], "\(check)")
        let reread = try again.admin("GET", "/v1/contexts/\(Self.watched)")
        #expect(reread.json?["rev"] as? Int == watchedRev)
        #expect((reread.json?["contentState"] as? [String: Any])?["delay"] as? Int == watchedDelay)
        var missing: [String] = []
        for (key, delay) in accepted.sorted(by: { $0.key < $1.key }) {
            let response = try again.admin("GET", "/v1/contexts/\(key)")
            if response.status != 200 || (response.json?["contentState"] as? [String: Any])?["delay"] as? Int != delay { missing.append(key) }
        }
        #expect(missing.isEmpty, "accepted writes lost: \(missing)")

        print(
            """
            DiskFull figures: tmpfs \(disk.megabytes) MB, \(Self.room >> 20) MB left by the filler; \(firstRefusalAfter ?? 0) writes \
            accepted before the first refusal, \(acceptedWrites) in all (\(accepted.count) new contexts, \(watchedRevAtFull) revisions of \
            the watched one); \(refusedWrites) refused, every one 503 storageFull with Retry-After: 30, none changed anything; \
            at full the WAL was \(walAtFull) bytes and the database file \(databaseAtFull); full for \
            \(String(format: "%.3f", fullFor)) s, the dispatcher's writes failed \(dispatcherAttemptsWhileFull) \
            times meanwhile (about one per 250 ms poll, at debug level); first write after deleting the filler accepted after \
            \(String(format: "%.1f", Self.seconds(firstSuccess) * 1000)) ms (\(refusedAfterFreeing) refused first), the phone had \
            the last state \(String(format: "%.1f", Self.seconds(delivered) * 1000)) ms after; storageFreed logged \
            \(String(format: "%.2f", Self.seconds(freedLogged))) s after (\(acceptedAfterFreeing) more writes meanwhile); integrity_check after the restart: \
            \(check.first?.values.first.map { "\($0)" } ?? "?"), \(accepted.count - missing.count)/\(accepted.count) new contexts read back
            """)
    }
}
