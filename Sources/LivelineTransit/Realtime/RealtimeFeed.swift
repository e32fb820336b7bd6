import Foundation
import LivelineModel
import LivelineTransitModel

/// A GTFS-Realtime `FeedMessage` as Liveline reads it: the header, and each entity's trip update
/// and vehicle position, copied out of protobuf-c into Swift values.
///
/// The fields are those of `Sources/CGTFSRealtime/proto/gtfs-realtime.proto`, written after the
/// reference (https://gtfs.org/documentation/realtime/reference/); fields that proto leaves out
/// (positions, alerts, extensions) are skipped when decoding. Numbers are `Int` whatever their
/// protobuf width: a value out of the field's range is clamped when it is encoded. Enumerations the
/// reference defines are structs with static members, so a value added after our `.proto` survives
/// decoding and encoding (guide README, habit 4). Decoding and encoding live in
/// `RealtimeFeed+Protobuf.swift`, the only file that touches protobuf-c.
public struct RealtimeFeed: Sendable, Hashable {
    public var header: Header
    public var entities: [Entity]

    public init(header: Header, entities: [Entity] = []) {
        self.header = header
        self.entities = entities
    }

    /// The trip updates of the entities that are not deleted, in feed order.
    public var tripUpdates: [TripUpdate] { entities.compactMap { $0.isDeleted ? nil : $0.tripUpdate } }

    /// The vehicle positions of the entities that are not deleted, in feed order.
    public var vehiclePositions: [VehiclePosition] { entities.compactMap { $0.isDeleted ? nil : $0.vehicle } }

    /// The first trip update for `tripID`; with a `startDate` (`YYYYMMDD`), an update that names
    /// another start date is passed over (one that names none still matches).
    ///
    /// The reference allows at most one trip update per trip instance; `start_date` tells apart two
    /// instances of one `trip_id` that run on different service days
    /// (https://gtfs.org/documentation/realtime/reference/#message-tripdescriptor).
    public func tripUpdate(tripID: String, startDate: String? = nil) -> TripUpdate? {
        tripUpdates.first { $0.trip.matches(tripID: tripID, startDate: startDate) }
    }

    /// The first vehicle position whose trip is `tripID` (and `startDate`, as for ``tripUpdate(tripID:startDate:)``).
    public func vehiclePosition(tripID: String, startDate: String? = nil) -> VehiclePosition? {
        vehiclePositions.first { $0.trip?.matches(tripID: tripID, startDate: startDate) ?? false }
    }
}

// MARK: - Header and entities

extension RealtimeFeed {
    /// `FeedHeader`: the version, whether the feed is complete, and when it was made.
    public struct Header: Sendable, Hashable {
        /// `gtfs_realtime_version`, e.g. `"2.0"`.
        public var version: String
        public var incrementality: Incrementality
        /// When the feed was made, POSIX seconds (`nil` when the producer left it out).
        public var timestamp: Int?

        public init(version: String = "2.0", incrementality: Incrementality = .fullDataset, timestamp: Int? = nil) {
            self.version = version
            self.incrementality = incrementality
            self.timestamp = timestamp
        }

        /// ``timestamp`` as a `Date`.
        public var date: Date? { timestamp.map { Date(timeIntervalSince1970: TimeInterval($0)) } }
    }

    /// `FeedHeader.Incrementality`.
    public struct Incrementality: RawRepresentable, Sendable, Hashable {
        public var rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Every entity is in the feed; what is missing is gone.
        public static let fullDataset = Incrementality(rawValue: 0)
        /// Only the entities that changed (experimental in the reference).
        public static let differential = Incrementality(rawValue: 1)
    }

    /// `FeedEntity`: one trip update and/or vehicle position under an id unique in the feed.
    public struct Entity: Sendable, Hashable {
        public var id: String
        /// Only meaningful in a differential feed: the entity with this id is gone.
        public var isDeleted: Bool
        public var tripUpdate: TripUpdate?
        public var vehicle: VehiclePosition?

        public init(id: String, isDeleted: Bool = false, tripUpdate: TripUpdate? = nil, vehicle: VehiclePosition? = nil) {
            self.id = id
            self.isDeleted = isDeleted
            self.tripUpdate = tripUpdate
            self.vehicle = vehicle
        }
    }
}

// MARK: - Descriptors

extension RealtimeFeed {
    /// `TripDescriptor`: which trip (instance) an update or position is about.
    public struct TripDescriptor: Sendable, Hashable {
        public var tripID: String?
        public var routeID: String?
        public var directionID: Int?
        /// The scheduled start time as in GTFS (`"25:15:35"` may pass 24 h).
        public var startTime: String?
        /// The service day, `YYYYMMDD`.
        public var startDate: String?
        public var scheduleRelationship: ScheduleRelationship

        public init(
            tripID: String? = nil, routeID: String? = nil, directionID: Int? = nil, startTime: String? = nil, startDate: String? = nil,
            scheduleRelationship: ScheduleRelationship = .scheduled
        ) {
            self.tripID = tripID
            self.routeID = routeID
            self.directionID = directionID
            self.startTime = startTime
            self.startDate = startDate
            self.scheduleRelationship = scheduleRelationship
        }

        /// Whether this descriptor names `tripID` and does not name another start date than `startDate`.
        public func matches(tripID: String, startDate: String?) -> Bool {
            guard self.tripID == tripID else { return false }
            guard let startDate, let own = self.startDate else { return true }
            return own == startDate
        }

        /// `TripDescriptor.ScheduleRelationship`: the trip against the static schedule.
        public struct ScheduleRelationship: RawRepresentable, Sendable, Hashable {
            public var rawValue: Int
            public init(rawValue: Int) { self.rawValue = rawValue }

            public static let scheduled = ScheduleRelationship(rawValue: 0)
            public static let added = ScheduleRelationship(rawValue: 1)
            public static let unscheduled = ScheduleRelationship(rawValue: 2)
            /// The trip was in the schedule but does not run.
            public static let canceled = ScheduleRelationship(rawValue: 3)
            public static let replacement = ScheduleRelationship(rawValue: 5)
            public static let duplicated = ScheduleRelationship(rawValue: 6)
            /// The trip does not run and should not be shown at all.
            public static let deleted = ScheduleRelationship(rawValue: 7)
        }
    }

    /// `VehicleDescriptor`.
    public struct VehicleDescriptor: Sendable, Hashable {
        public var id: String?
        public var label: String?
        public var licensePlate: String?

        public init(id: String? = nil, label: String? = nil, licensePlate: String? = nil) {
            self.id = id
            self.label = label
            self.licensePlate = licensePlate
        }
    }
}

// MARK: - Trip updates

extension RealtimeFeed {
    /// `TripUpdate`: predictions (or past events) for the stops of one trip.
    public struct TripUpdate: Sendable, Hashable {
        public var trip: TripDescriptor
        public var vehicle: VehicleDescriptor?
        /// When the vehicle's progress was measured, POSIX seconds.
        public var timestamp: Int?
        /// The trip's schedule deviation in seconds, for the stops before the first stop time
        /// update with a delay (experimental in the reference).
        public var delay: Int?
        /// In stop order (the reference asks producers to sort by `stop_sequence`).
        public var stopTimeUpdates: [StopTimeUpdate]

        public init(
            trip: TripDescriptor, vehicle: VehicleDescriptor? = nil, timestamp: Int? = nil, delay: Int? = nil,
            stopTimeUpdates: [StopTimeUpdate] = []
        ) {
            self.trip = trip
            self.vehicle = vehicle
            self.timestamp = timestamp
            self.delay = delay
            self.stopTimeUpdates = stopTimeUpdates
        }

        /// The vehicle's id (``vehicle``'s `id`).
        public var vehicleID: String? { vehicle?.id }

        /// Whether the trip does not run: `CANCELED`, or `DELETED` (the reference's newer value).
        public var isCanceled: Bool { trip.scheduleRelationship == .canceled || trip.scheduleRelationship == .deleted }
    }

    /// `TripUpdate.StopTimeUpdate`: the update for one stop, found by `stop_sequence` or `stop_id`.
    public struct StopTimeUpdate: Sendable, Hashable {
        public var stopSequence: Int?
        public var stopID: String?
        public var arrival: StopTimeEvent?
        public var departure: StopTimeEvent?
        public var scheduleRelationship: ScheduleRelationship

        public init(
            stopSequence: Int? = nil, stopID: String? = nil, arrival: StopTimeEvent? = nil, departure: StopTimeEvent? = nil,
            scheduleRelationship: ScheduleRelationship = .scheduled
        ) {
            self.stopSequence = stopSequence
            self.stopID = stopID
            self.arrival = arrival
            self.departure = departure
            self.scheduleRelationship = scheduleRelationship
        }

        /// `StopTimeUpdate.ScheduleRelationship`: the stop against the static schedule.
        public struct ScheduleRelationship: RawRepresentable, Sendable, Hashable {
            public var rawValue: Int
            public init(rawValue: Int) { self.rawValue = rawValue }

            /// The default: the vehicle serves the stop; the events say when.
            public static let scheduled = ScheduleRelationship(rawValue: 0)
            /// The vehicle does not stop here; the delay before still applies after.
            public static let skipped = ScheduleRelationship(rawValue: 1)
            /// No real-time data from this stop on (until the next update with data).
            public static let noData = ScheduleRelationship(rawValue: 2)
            /// A frequency-based trip without exact times.
            public static let unscheduled = ScheduleRelationship(rawValue: 3)
        }
    }

    /// `TripUpdate.StopTimeEvent`: a predicted (or past) arrival or departure.
    public struct StopTimeEvent: Sendable, Hashable {
        /// Seconds against the schedule (positive: late).
        public var delay: Int?
        /// The absolute time, POSIX seconds; wins over ``delay`` when both are given.
        public var time: Int?
        /// The expected error in seconds (`0`: certain; `nil`: unknown).
        public var uncertainty: Int?

        public init(delay: Int? = nil, time: Int? = nil, uncertainty: Int? = nil) {
            self.delay = delay
            self.time = time
            self.uncertainty = uncertainty
        }

        /// Whether the event says when (a time or a delay); an uncertainty alone says nothing.
        public var hasData: Bool { delay != nil || time != nil }
    }
}

// MARK: - Vehicle positions

extension RealtimeFeed {
    /// `VehiclePosition`, for what Liveline shows: the trip, where on it, and how full the vehicle is.
    public struct VehiclePosition: Sendable, Hashable {
        public var trip: TripDescriptor?
        public var vehicle: VehicleDescriptor?
        public var currentStopSequence: Int?
        public var stopID: String?
        public var currentStatus: StopStatus?
        /// When the position was measured, POSIX seconds.
        public var timestamp: Int?
        public var occupancyStatus: OccupancyStatus?
        public var occupancyPercentage: Int?

        public init(
            trip: TripDescriptor? = nil, vehicle: VehicleDescriptor? = nil, currentStopSequence: Int? = nil, stopID: String? = nil,
            currentStatus: StopStatus? = nil, timestamp: Int? = nil, occupancyStatus: OccupancyStatus? = nil, occupancyPercentage: Int? = nil
        ) {
            self.trip = trip
            self.vehicle = vehicle
            self.currentStopSequence = currentStopSequence
            self.stopID = stopID
            self.currentStatus = currentStatus
            self.timestamp = timestamp
            self.occupancyStatus = occupancyStatus
            self.occupancyPercentage = occupancyPercentage
        }

        /// How full the vehicle is for the card; `unknown` without an occupancy status.
        public var occupancy: OccupancyLevel { occupancyStatus?.level ?? .unknown }

        /// `VehiclePosition.VehicleStopStatus`.
        public struct StopStatus: RawRepresentable, Sendable, Hashable {
            public var rawValue: Int
            public init(rawValue: Int) { self.rawValue = rawValue }

            public static let incomingAt = StopStatus(rawValue: 0)
            public static let stoppedAt = StopStatus(rawValue: 1)
            public static let inTransitTo = StopStatus(rawValue: 2)
        }

        /// `VehiclePosition.OccupancyStatus`.
        public struct OccupancyStatus: RawRepresentable, Sendable, Hashable {
            public var rawValue: Int
            public init(rawValue: Int) { self.rawValue = rawValue }

            public static let empty = OccupancyStatus(rawValue: 0)
            public static let manySeatsAvailable = OccupancyStatus(rawValue: 1)
            public static let fewSeatsAvailable = OccupancyStatus(rawValue: 2)
            public static let standingRoomOnly = OccupancyStatus(rawValue: 3)
            public static let crushedStandingRoomOnly = OccupancyStatus(rawValue: 4)
            public static let full = OccupancyStatus(rawValue: 5)
            public static let notAcceptingPassengers = OccupancyStatus(rawValue: 6)
            public static let noDataAvailable = OccupancyStatus(rawValue: 7)
            public static let notBoardable = OccupancyStatus(rawValue: 8)

            /// The card's level (the levels of `docs/contracts.md` §3; the mapping is ours): empty or
            /// many seats → `low`, few seats → `medium`, standing room → `high`, crushed, full or
            /// not accepting passengers → `full`; no data, not boardable and values the reference
            /// adds later → `unknown`.
            public var level: OccupancyLevel {
                switch self {
                case .empty, .manySeatsAvailable: .low
                case .fewSeatsAvailable: .medium
                case .standingRoomOnly: .high
                case .crushedStandingRoomOnly, .full, .notAcceptingPassengers: .full
                default: .unknown
                }
            }
        }
    }
}
