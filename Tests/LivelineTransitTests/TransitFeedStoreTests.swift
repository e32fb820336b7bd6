import Foundation
import LivelineEngine
import LivelineStore
import LivelineTestSupport
import Synchronization
import Testing

@testable import LivelineTransit

/// Feeds in the database (SQLite, or PostgreSQL with `LIVELINE_TEST_BACKEND=postgres`): loaded
/// whole or not at all, the current one replaced in one transaction.
@Suite struct TransitFeedStoreTests {
    final class Fixture {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-transit-store-\(UUID().uuidString)")
        let store: Store
        let feeds: TransitFeedStore

        init() throws {
            store = try TestBackend.openStore(folder: folder, features: [TransitFeature().featureMigrations])
            feeds = TransitFeedStore(door: EngineDoor(store: store, clock: { Date() }))
        }

        func count(_ table: String) throws -> Int {
            try store.database.read { try $0.queryOne("SELECT COUNT(*) AS n FROM \(table)")?.int("n") ?? -1 }
        }

        deinit { try? FileManager.default.removeItem(at: folder) }
    }

    @Test func aFeedLoadsWholeAndTheSameFilesAreNotLoadedTwice() throws {
        let fixture = try Fixture()
        let path = PublishedFeedTests.folder.appendingPathComponent("cairns_gtfs.zip")
        let (feed, _, fingerprint) = try GTFSReader.readWithFingerprint(path)
        let (loaded, fresh) = try fixture.feeds.load(feed, fingerprint: fingerprint, source: path.path, now: Date())
        #expect(fresh && loaded.stops == 416 && loaded.trips == 1339 && loaded.stopTimes == 37790 && loaded.timeZone == "Australia/Brisbane")
        #expect(try fixture.count("transit_stop_times") == 37790 && fixture.count("transit_stops") == 416 && fixture.count("transit_trips") == 1339)
        let again = try fixture.feeds.load(feed, fingerprint: fingerprint, source: path.path, now: Date())
        #expect(!again.loaded && again.feed.id == loaded.id)
    }

    @Test func aNewFeedReplacesTheCurrentOneAndOneThatFailsHalfwayChangesNothing() throws {
        let fixture = try Fixture()
        let sample = PublishedFeedTests.folder.appendingPathComponent("sample_gtfs.zip")
        let (feed, _, fingerprint) = try GTFSReader.readWithFingerprint(sample)
        let first = try fixture.feeds.load(feed, fingerprint: fingerprint, source: sample.path, now: Date()).feed

        // The same trip's stop_sequence twice: the database refuses the second row, late in the load.
        var broken = feed
        let tripID = try #require(broken.stopTimes.keys.sorted().last)
        let last = try #require(broken.stopTimes[tripID]?.last)
        broken.stopTimes[tripID]?.append(last)
        #expect(throws: (any Error).self) { try fixture.feeds.load(broken, fingerprint: "broken", source: "broken", now: Date()) }
        #expect(try fixture.feeds.current() == first, "the current feed is as it was")
        #expect(try fixture.count("transit_feeds") == 1 && fixture.count("transit_stop_times") == 28)

        let cairns = PublishedFeedTests.folder.appendingPathComponent("cairns_gtfs.zip")
        let (next, _, nextFingerprint) = try GTFSReader.readWithFingerprint(cairns)
        let second = try fixture.feeds.load(next, fingerprint: nextFingerprint, source: cairns.path, now: Date()).feed
        #expect(try fixture.feeds.current()?.id == second.id && second.id != first.id)
        #expect(try fixture.count("transit_feeds") == 1 && fixture.count("transit_stop_times") == 37790, "the old feed's rows are gone")
    }

    /// Three servers on one database, each with a connection of its own (PostgreSQL with
    /// `LIVELINE_TEST_BACKEND=postgres`, else three SQLite connections to one file).
    final class Instances {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-transit-instances-\(UUID().uuidString)")
        let drop: @Sendable () -> Void
        var feeds: [TransitFeedStore] = []
        let first: Store

        init() throws {
            var databases: [any Database] = []
            if TestBackend.isPostgres {
                let (schema, drop) = try TestPostgres.freshSchema()
                self.drop = drop
                for _ in 0..<3 {
                    databases.append(try PostgresDatabase(settings: PostgresSettings(url: TestPostgres.url(), searchPath: schema), poolSize: 2))
                }
            } else {
                drop = {}
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                for _ in 0..<3 { databases.append(try SQLiteDatabase(folder: folder)) }
            }
            // The schema is there before they start (`liveline users add` made it).
            first = try Store.open(databases[0], features: [TransitFeature().featureMigrations])
            for database in databases {
                feeds.append(
                    TransitFeedStore(
                        door: EngineDoor(store: try Store.open(database, features: [TransitFeature().featureMigrations]), clock: { Date() })))
            }
        }

        /// Each instance loads `feed` at the same moment; the errors, in instance order.
        func loadTogether(_ feed: GTFSFeed, fingerprint: String) -> [String?] {
            let errors = Mutex([String?](repeating: nil, count: feeds.count))
            let ready = DispatchGroup()
            let go = DispatchSemaphore(value: 0)
            let done = DispatchGroup()
            for (index, store) in feeds.enumerated() {
                ready.enter()
                done.enter()
                Thread.detachNewThread {
                    ready.leave()
                    go.wait()
                    do {
                        try store.load(feed, fingerprint: fingerprint, source: "instance \(index)", now: Date())
                    } catch {
                        errors.withLock { $0[index] = "\(error)" }
                    }
                    done.leave()
                }
            }
            ready.wait()
            for _ in feeds { go.signal() }
            done.wait()
            return errors.withLock { $0 }
        }

        func count(_ table: String) throws -> Int {
            try first.database.read { try $0.queryOne("SELECT COUNT(*) AS n FROM \(table)")?.int("n") ?? -1 }
        }

        deinit {
            drop()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// The demo feed, and the same with one stop renamed (another fingerprint).
    static func twoFeeds() throws -> [(feed: GTFSFeed, fingerprint: String)] {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-demo-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = try DemoFeed.write(to: folder)
        let (feed, _, fingerprint) = try GTFSReader.readWithFingerprint(path)
        var renamed = feed
        let stopID = try #require(renamed.stops.keys.sorted().first)
        renamed.stops[stopID]?.name += " (renamed)"
        return [(feed, fingerprint), (renamed, fingerprint + "-renamed")]
    }

    @Test func threeInstancesLoadingTheFirstFeedTogetherAllSucceedThirtyTimes() throws {
        let instances = try Instances()
        let (feed, fingerprint) = try Self.twoFeeds()[0]
        for round in 1...30 {
            let errors = instances.loadTogether(feed, fingerprint: fingerprint)
            #expect(errors.allSatisfy { $0 == nil }, "round \(round): \(errors)")
            #expect(try instances.count("transit_feeds") == 1, "round \(round): one feed stays")
            #expect(try instances.count("transit_stops") == feed.stops.count, "round \(round)")
            // Back to a database with the schema and no feed.
            try instances.first.database.write { sql in
                for table in [
                    "transit_stop_times", "transit_trips", "transit_routes", "transit_stops", "transit_calendars", "transit_calendar_dates",
                    "transit_feeds",
                ] {
                    try sql.execute("DELETE FROM \(table)")
                }
            }
        }
    }

    @Test func threeInstancesLoadingAChangedFeedTogetherAllSucceedThirtyTimes() throws {
        let instances = try Instances()
        let feeds = try Self.twoFeeds()
        try instances.feeds[0].load(feeds[0].feed, fingerprint: feeds[0].fingerprint, source: "first", now: Date())
        for round in 1...30 {
            // The files change under the three: each sees the change and loads it.
            let (feed, fingerprint) = feeds[round % 2]
            let errors = instances.loadTogether(feed, fingerprint: fingerprint)
            #expect(errors.allSatisfy { $0 == nil }, "round \(round): \(errors)")
            #expect(try instances.feeds[0].current()?.fingerprint == fingerprint, "round \(round)")
            #expect(try instances.count("transit_feeds") == 1 && instances.count("transit_stops") == feed.stops.count, "round \(round)")
        }
    }
}
