import CGTFSRealtime
import Foundation
import LivelineModel
import Testing

@testable import LivelineTransit
import LivelineTransitModel

@Suite struct RealtimeFeedTests {
    // MARK: Decoding

    @Test func decodesAMessageBuiltAndPackedWithProtobufC() throws {
        let bytes = packedWithProtobufC()
        let feed = try RealtimeFeed.decode(bytes)

        #expect(feed.header == RealtimeFeed.Header(version: "2.0", incrementality: .fullDataset, timestamp: 1_748_850_000))
        #expect(feed.entities.map(\.id) == ["tu-1", "vp-1"])

        let update = try #require(feed.tripUpdate(tripID: "5-0815"))
        #expect(update.trip.routeID == "5")
        #expect(update.trip.startDate == "20250602")
        #expect(update.trip.startTime == "08:15:00")
        #expect(update.trip.scheduleRelationship == .scheduled)
        #expect(update.vehicleID == "tram-3301")
        #expect(update.timestamp == 1_748_849_990)
        #expect(update.delay == nil)
        #expect(update.stopTimeUpdates.count == 2)
        let first = update.stopTimeUpdates[0]
        #expect(first.stopSequence == 3)
        #expect(first.stopID == nil)
        #expect(first.arrival == RealtimeFeed.StopTimeEvent(delay: 300, time: nil, uncertainty: 30))
        #expect(first.departure == nil)
        #expect(first.scheduleRelationship == .scheduled)
        let second = update.stopTimeUpdates[1]
        #expect(second.stopSequence == nil)
        #expect(second.stopID == "wasserturm")
        #expect(second.arrival == nil)
        #expect(second.departure == RealtimeFeed.StopTimeEvent(delay: nil, time: 1_748_851_234, uncertainty: nil))
        #expect(second.scheduleRelationship == .skipped)

        let vehicle = try #require(feed.vehiclePosition(tripID: "5-0815"))
        #expect(vehicle.trip?.startDate == "20250602")
        #expect(vehicle.occupancyStatus == .standingRoomOnly)
        #expect(vehicle.occupancy == .high)
        #expect(vehicle.currentStopSequence == 4)
        #expect(vehicle.currentStatus == .stoppedAt)
    }

    /// The bytes of a small message, written by hand from the protobuf encoding rules, with a
    /// field our `.proto` leaves out (`VehiclePosition.position`, field 2): it is skipped.
    @Test func decodesHandWrittenBytesAndSkipsFieldsTheProtoLeavesOut() throws {
        let header: [UInt8] = [0x0a, 0x03] + Array("2.0".utf8) + [0x18, 0xd0, 0xaa, 0xf5, 0xc1, 0x06]  // timestamp 1748850000
        let position: [UInt8] = [0x0d, 0x00, 0x00, 0x46, 0x42, 0x15, 0x00, 0x00, 0x08, 0x41]  // latitude 49.5, longitude 8.5
        let vehicle: [UInt8] = [0x12, UInt8(position.count)] + position + [0x48, 0x05]  // occupancy_status FULL
        let entity: [UInt8] = [0x0a, 0x01, UInt8(ascii: "v"), 0x22, UInt8(vehicle.count)] + vehicle
        let bytes: [UInt8] = [0x0a, UInt8(header.count)] + header + [0x12, UInt8(entity.count)] + entity

        let feed = try RealtimeFeed.decode(bytes)
        #expect(feed.header.timestamp == 1_748_850_000)
        #expect(feed.header.date == Date(timeIntervalSince1970: 1_748_850_000))
        #expect(feed.entities == [RealtimeFeed.Entity(id: "v", vehicle: RealtimeFeed.VehiclePosition(occupancyStatus: .full))])
        #expect(feed.vehiclePositions.first?.occupancy == .full)
    }

    @Test func encodesTheSameBytesAProducerWouldForASimpleMessage() {
        let feed = RealtimeFeed(header: RealtimeFeed.Header(version: "2.0", timestamp: 1_748_850_000))
        let expected: [UInt8] = [0x0a, 0x0b, 0x0a, 0x03] + Array("2.0".utf8) + [0x18, 0xd0, 0xaa, 0xf5, 0xc1, 0x06]
        #expect(feed.encoded() == expected)
    }

    @Test func everyModelledFieldSurvivesARoundTrip() throws {
        let feed = RealtimeFeed(
            header: RealtimeFeed.Header(version: "2.0", incrementality: .differential, timestamp: 1_748_850_000),
            entities: [
                RealtimeFeed.Entity(
                    id: "tu-1",
                    tripUpdate: RealtimeFeed.TripUpdate(
                        trip: RealtimeFeed.TripDescriptor(
                            tripID: "5-0815", routeID: "5", directionID: 1, startTime: "25:15:35", startDate: "20250602",
                            scheduleRelationship: .scheduled),
                        vehicle: RealtimeFeed.VehicleDescriptor(id: "tram-3301", label: "3301", licensePlate: "MA-RN 3301"),
                        timestamp: 1_748_849_990, delay: -45,
                        stopTimeUpdates: [
                            RealtimeFeed.StopTimeUpdate(
                                stopSequence: 0, arrival: RealtimeFeed.StopTimeEvent(delay: 0, uncertainty: 0),
                                departure: RealtimeFeed.StopTimeEvent(delay: -30, time: 1_748_850_100, uncertainty: 60)),
                            RealtimeFeed.StopTimeUpdate(stopSequence: 7, stopID: "paradeplatz", scheduleRelationship: .skipped),
                            RealtimeFeed.StopTimeUpdate(stopID: "bismarckplatz", scheduleRelationship: .noData),
                            RealtimeFeed.StopTimeUpdate(
                                stopSequence: 9, arrival: RealtimeFeed.StopTimeEvent(time: 1_748_851_000), scheduleRelationship: .unscheduled),
                        ])),
                RealtimeFeed.Entity(
                    id: "tu-2",
                    tripUpdate: RealtimeFeed.TripUpdate(trip: RealtimeFeed.TripDescriptor(tripID: "5-0830", scheduleRelationship: .canceled))),
                RealtimeFeed.Entity(id: "gone", isDeleted: true),
                RealtimeFeed.Entity(
                    id: "vp-1",
                    vehicle: RealtimeFeed.VehiclePosition(
                        trip: RealtimeFeed.TripDescriptor(tripID: "5-0815", startDate: "20250602"),
                        vehicle: RealtimeFeed.VehicleDescriptor(id: "tram-3301"), currentStopSequence: 4, stopID: "wasserturm",
                        currentStatus: .inTransitTo, timestamp: 1_748_849_995, occupancyStatus: .notBoardable, occupancyPercentage: 130)),
            ])

        let decoded = try RealtimeFeed.decode(feed.encoded())
        #expect(decoded == feed)
        #expect(decoded.encoded() == feed.encoded())
    }

    @Test func valuesTheProtoDoesNotNameSurviveARoundTrip() throws {
        let feed = RealtimeFeed(
            header: RealtimeFeed.Header(timestamp: 1),
            entities: [
                RealtimeFeed.Entity(
                    id: "a",
                    tripUpdate: RealtimeFeed.TripUpdate(
                        trip: RealtimeFeed.TripDescriptor(tripID: "t", scheduleRelationship: .init(rawValue: 9)),
                        stopTimeUpdates: [RealtimeFeed.StopTimeUpdate(stopSequence: 1, scheduleRelationship: .init(rawValue: 4))]),
                    vehicle: RealtimeFeed.VehiclePosition(occupancyStatus: .init(rawValue: 42)))
            ])
        let decoded = try RealtimeFeed.decode(feed.encoded())
        #expect(decoded == feed)
        #expect(decoded.tripUpdates.first?.trip.scheduleRelationship.rawValue == 9)
        #expect(decoded.vehiclePositions.first?.occupancy == .unknown)
    }

    @Test func tripUpdatesAreFoundByTripAndStartDateAndDeletedEntitiesAreLeftOut() {
        func entity(_ id: String, trip: String, date: String?, deleted: Bool = false) -> RealtimeFeed.Entity {
            RealtimeFeed.Entity(
                id: id, isDeleted: deleted,
                tripUpdate: RealtimeFeed.TripUpdate(trip: RealtimeFeed.TripDescriptor(tripID: trip, startDate: date), delay: id.count))
        }
        let feed = RealtimeFeed(
            header: RealtimeFeed.Header(timestamp: 1),
            entities: [
                entity("x", trip: "t1", date: "20250601", deleted: true), entity("yy", trip: "t1", date: "20250602"),
                entity("zzz", trip: "t2", date: nil),
            ])

        #expect(feed.tripUpdates.count == 2)
        #expect(feed.tripUpdate(tripID: "t1")?.delay == 2)
        #expect(feed.tripUpdate(tripID: "t1", startDate: "20250602")?.delay == 2)
        #expect(feed.tripUpdate(tripID: "t1", startDate: "20250601") == nil)
        #expect(feed.tripUpdate(tripID: "t2", startDate: "20250602")?.delay == 3)
        #expect(feed.tripUpdate(tripID: "t3") == nil)
    }

    // MARK: Refusals

    @Test func anEmptyFileIsRefused() {
        let error = refusal(of: [], source: "rt/empty.pb")
        #expect(error?.code == .notAFeedMessage)
        #expect(error?.description == "rt/empty.pb is not a GTFS-Realtime FeedMessage: it is empty (0 bytes)")
    }

    @Test func aJSONFileIsRefusedAndSaidToLookLikeJSON() {
        let json = Array(#"{"header": {"gtfs_realtime_version": "2.0", "timestamp": 1748850000}, "entity": []}"#.utf8)
        let error = refusal(of: json)
        #expect(error?.code == .notAFeedMessage)
        #expect(
            error?.description == "the input is not a GTFS-Realtime FeedMessage (protobuf-c could not decode \(json.count) bytes; "
                + "they start with 7b 22 68 65, like JSON text)")
    }

    @Test func anHTMLErrorPageIsRefused() {
        let html = Array("<!DOCTYPE html><html><body>502 Bad Gateway</body></html>".utf8)
        let error = refusal(of: html, source: "https://example.invalid/rt")
        #expect(error?.description.hasPrefix("https://example.invalid/rt is not a GTFS-Realtime FeedMessage") == true)
        #expect(error?.description.hasSuffix("like XML or HTML text)") == true)
    }

    @Test func randomBytesAreRefused() {
        var generator = SplitMix64(seed: 20)
        for length in [1, 7, 64, 1000] {
            let bytes = (0..<length).map { _ in UInt8(truncatingIfNeeded: generator.next()) }
            let error = refusal(of: bytes)
            #expect(error?.code == .notAFeedMessage, "\(length) random bytes")
            #expect(error?.description.contains("could not decode \(length) bytes") == true)
        }
    }

    @Test func aTruncatedMessageIsRefused() throws {
        let bytes = packedWithProtobufC()
        #expect(try RealtimeFeed.decode(bytes).entities.count == 2)
        for cut in [1, 3, bytes.count / 2] {
            let error = refusal(of: Array(bytes.dropLast(cut)))
            #expect(error?.code == .notAFeedMessage, "the message without its last \(cut) bytes")
            #expect(error?.description.contains("could not decode \(bytes.count - cut) bytes") == true)
        }
    }

    @Test func aMessageWithoutTheRequiredHeaderIsRefused() {
        // A well-formed protobuf message (field 2, one entity with an id), but no header.
        let bytes: [UInt8] = [0x12, 0x03, 0x0a, 0x01, UInt8(ascii: "e")]
        #expect(refusal(of: bytes)?.code == .notAFeedMessage)
    }

    // MARK: Occupancy

    @Test(arguments: [
        (RealtimeFeed.VehiclePosition.OccupancyStatus?.none, OccupancyLevel.unknown),
        (.empty, .low), (.manySeatsAvailable, .low), (.fewSeatsAvailable, .medium), (.standingRoomOnly, .high),
        (.crushedStandingRoomOnly, .full), (.full, .full), (.notAcceptingPassengers, .full), (.noDataAvailable, .unknown),
        (.notBoardable, .unknown), (RealtimeFeed.VehiclePosition.OccupancyStatus(rawValue: 9), .unknown),
    ])
    func occupancyStatusMapsToTheCardsLevel(status: RealtimeFeed.VehiclePosition.OccupancyStatus?, level: OccupancyLevel) throws {
        let feed = RealtimeFeed(
            header: RealtimeFeed.Header(timestamp: 1),
            entities: [
                RealtimeFeed.Entity(
                    id: "v", vehicle: RealtimeFeed.VehiclePosition(trip: RealtimeFeed.TripDescriptor(tripID: "t"), occupancyStatus: status))
            ])
        let decoded = try RealtimeFeed.decode(feed.encoded())
        #expect(decoded.vehiclePosition(tripID: "t")?.occupancyStatus == status)
        #expect(decoded.vehiclePosition(tripID: "t")?.occupancy == level)
    }

    // MARK: Freshness

    @Test func aFeedOlderThan65SecondsIsStale() {
        let made = Date(timeIntervalSince1970: 1_748_850_000)
        let feed = RealtimeFeed(header: RealtimeFeed.Header(timestamp: 1_748_850_000))
        #expect(!feed.isStale(at: made))
        #expect(!feed.isStale(at: made.addingTimeInterval(65)))
        #expect(feed.isStale(at: made.addingTimeInterval(66)))
        #expect(!feed.isStale(at: made.addingTimeInterval(-30)), "a producer's clock ahead of ours")
        #expect(feed.isStale(at: made.addingTimeInterval(31), maximumAge: 30))
        #expect(RealtimeFreshness.isStale(RealtimeFeed(header: RealtimeFeed.Header(timestamp: nil)), at: made), "no timestamp: no age")
    }

    @Test func onlyNewerFeedsAndTripUpdatesReplaceTheLastOnes() {
        func feed(_ timestamp: Int?) -> RealtimeFeed { RealtimeFeed(header: RealtimeFeed.Header(timestamp: timestamp)) }
        #expect(feed(100).isNewer(than: nil))
        #expect(feed(101).isNewer(than: feed(100)))
        #expect(!feed(100).isNewer(than: feed(100)))
        #expect(!feed(99).isNewer(than: feed(100)))
        #expect(feed(nil).isNewer(than: feed(100)))

        func update(_ timestamp: Int?) -> RealtimeFeed.TripUpdate {
            RealtimeFeed.TripUpdate(trip: RealtimeFeed.TripDescriptor(tripID: "t"), timestamp: timestamp)
        }
        #expect(update(5).isNewer(than: nil))
        #expect(update(6).isNewer(than: update(5)))
        #expect(!update(5).isNewer(than: update(5)))
        #expect(!update(4).isNewer(than: update(5)))
        #expect(update(4).isNewer(than: update(nil)))
    }

    // MARK: Helpers

    private func refusal(of bytes: [UInt8], source: String? = nil) -> RealtimeFeedError? {
        do {
            let feed = try RealtimeFeed.decode(bytes, source: source)
            Issue.record("decoded \(bytes.count) bytes into \(feed.entities.count) entities")
            return nil
        } catch {
            return error
        }
    }

    /// A FeedMessage built field by field with protobuf-c's own structs and packed by protobuf-c,
    /// independent of ``RealtimeFeed/encoded()``.
    private func packedWithProtobufC() -> [UInt8] {
        func make<T>(_ initialize: (UnsafeMutablePointer<T>?) -> Void, _ fill: (inout T) -> Void) -> UnsafeMutablePointer<T> {
            let pointer = malloc(MemoryLayout<T>.size)!.bindMemory(to: T.self, capacity: 1)
            initialize(pointer)
            fill(&pointer.pointee)
            return pointer
        }
        func list<T>(_ items: [UnsafeMutablePointer<T>]) -> UnsafeMutablePointer<UnsafeMutablePointer<T>?> {
            let pointer = malloc(MemoryLayout<UnsafeMutablePointer<T>?>.stride * items.count)!.bindMemory(
                to: UnsafeMutablePointer<T>?.self, capacity: items.count)
            for (index, item) in items.enumerated() { pointer[index] = item }
            return pointer
        }
        func trip() -> UnsafeMutablePointer<TransitRealtime__TripDescriptor> {
            make(transit_realtime__trip_descriptor__init) {
                $0.trip_id = strdup("5-0815")
                $0.route_id = strdup("5")
                $0.start_date = strdup("20250602")
                $0.start_time = strdup("08:15:00")
            }
        }
        let arrival = make(transit_realtime__trip_update__stop_time_event__init) {
            ($0.has_delay, $0.delay, $0.has_uncertainty, $0.uncertainty) = (1, 300, 1, 30)
        }
        let departure = make(transit_realtime__trip_update__stop_time_event__init) { ($0.has_time, $0.time) = (1, 1_748_851_234) }
        let third = make(transit_realtime__trip_update__stop_time_update__init) {
            ($0.has_stop_sequence, $0.stop_sequence) = (1, 3)
            $0.arrival = arrival
        }
        let wasserturm = make(transit_realtime__trip_update__stop_time_update__init) {
            $0.stop_id = strdup("wasserturm")
            $0.departure = departure
            ($0.has_schedule_relationship, $0.schedule_relationship) = (
                1, TRANSIT_REALTIME__TRIP_UPDATE__STOP_TIME_UPDATE__SCHEDULE_RELATIONSHIP__SKIPPED
            )
        }
        let tripUpdate = make(transit_realtime__trip_update__init) {
            $0.trip = trip()
            $0.vehicle = make(transit_realtime__vehicle_descriptor__init) { $0.id = strdup("tram-3301") }
            ($0.has_timestamp, $0.timestamp) = (1, 1_748_849_990)
            ($0.n_stop_time_update, $0.stop_time_update) = (2, list([third, wasserturm]))
        }
        let vehicle = make(transit_realtime__vehicle_position__init) {
            $0.trip = trip()
            ($0.has_current_stop_sequence, $0.current_stop_sequence) = (1, 4)
            ($0.has_current_status, $0.current_status) = (1, TRANSIT_REALTIME__VEHICLE_POSITION__VEHICLE_STOP_STATUS__STOPPED_AT)
            ($0.has_occupancy_status, $0.occupancy_status) = (1, TRANSIT_REALTIME__VEHICLE_POSITION__OCCUPANCY_STATUS__STANDING_ROOM_ONLY)
        }
        let entities = [
            make(transit_realtime__feed_entity__init) {
                $0.id = strdup("tu-1")
                $0.trip_update = tripUpdate
            },
            make(transit_realtime__feed_entity__init) {
                $0.id = strdup("vp-1")
                $0.vehicle = vehicle
            },
        ]
        let message = make(transit_realtime__feed_message__init) {
            $0.header = make(transit_realtime__feed_header__init) {
                $0.gtfs_realtime_version = strdup("2.0")
                ($0.has_incrementality, $0.incrementality) = (1, TRANSIT_REALTIME__FEED_HEADER__INCREMENTALITY__FULL_DATASET)
                ($0.has_timestamp, $0.timestamp) = (1, 1_748_850_000)
            }
            ($0.n_entity, $0.entity) = (entities.count, list(entities))
        }
        defer { transit_realtime__feed_message__free_unpacked(message, nil) }
        var bytes = [UInt8](repeating: 0, count: transit_realtime__feed_message__get_packed_size(message))
        let written = bytes.withUnsafeMutableBufferPointer { transit_realtime__feed_message__pack(message, $0.baseAddress) }
        #expect(written == bytes.count)
        return bytes
    }
}

/// A small seeded generator, so that "random" bytes are the same on every run.
private struct SplitMix64: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
