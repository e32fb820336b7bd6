import Foundation
import LivelineEngine
import LivelineStore
import LivelineTestSupport
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
}
