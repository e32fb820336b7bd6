internal import CGTFSRealtime
import Foundation
import LivelineTransitModel

/// The protobuf wire format of ``RealtimeFeed``, through protobuf-c (the C code protoc-c made from
/// `Sources/CGTFSRealtime/proto/gtfs-realtime.proto`). The only file that touches protobuf-c.
extension RealtimeFeed {
    /// Decodes a serialized `FeedMessage`, copying every modelled field into Swift values and
    /// freeing the C message before returning.
    ///
    /// protobuf-c refuses bytes that are not a well-formed message with the required fields
    /// (`header`, its `gtfs_realtime_version`, each entity's `id`, each trip update's `trip`):
    /// those throw ``RealtimeFeedError`` (`notAFeedMessage`) whose message names the input by
    /// `source` (a path or URL) when given, its size, and what it looks like (JSON, HTML, gzip…).
    public static func decode(_ bytes: [UInt8], source: String? = nil) throws(RealtimeFeedError) -> RealtimeFeed {
        let what = source.map { "\($0) is" } ?? "the input is"
        guard !bytes.isEmpty else {
            throw RealtimeFeedError(.notAFeedMessage, "\(what) not a GTFS-Realtime FeedMessage: it is empty (0 bytes)")
        }
        let message = bytes.withUnsafeBufferPointer { buffer in
            transit_realtime__feed_message__unpack(nil, buffer.count, buffer.baseAddress)
        }
        guard let message else {
            throw RealtimeFeedError(
                .notAFeedMessage,
                "\(what) not a GTFS-Realtime FeedMessage (protobuf-c could not decode \(bytes.count) bytes\(Self.resemblance(of: bytes)))")
        }
        defer { transit_realtime__feed_message__free_unpacked(message, nil) }
        return RealtimeFeed(message.pointee)
    }

    /// The feed as a serialized `FeedMessage`; ``decode(_:source:)`` gives back an equal feed.
    public func encoded() -> [UInt8] {
        let message = makeMessage()
        defer { transit_realtime__feed_message__free_unpacked(message, nil) }
        let size = transit_realtime__feed_message__get_packed_size(message)
        var bytes = [UInt8](repeating: 0, count: size)
        let written = bytes.withUnsafeMutableBufferPointer { transit_realtime__feed_message__pack(message, $0.baseAddress) }
        precondition(written == size, "protobuf-c packed \(written) bytes of \(size)")
        return bytes
    }

    /// What bytes that failed to decode look like, for the error message: the first bytes in hex,
    /// and the format they suggest when it is a common mistake (a JSON or HTML answer, a
    /// compressed file).
    private static func resemblance(of bytes: [UInt8]) -> String {
        let head = bytes.prefix(4).map { String(format: "%02x", $0) }.joined(separator: " ")
        let first = bytes.first { ![0x20, 0x09, 0x0a, 0x0d, 0xef, 0xbb, 0xbf].contains($0) }
        let looks: String? =
            switch (first, bytes.count >= 2 ? (bytes[0], bytes[1]) : nil) {
            case (UInt8(ascii: "{"), _), (UInt8(ascii: "["), _): "JSON text"
            case (UInt8(ascii: "<"), _): "XML or HTML text"
            case (_, (0x1f, 0x8b)?): "gzip-compressed data"
            case (_, (0x50, 0x4b)?): "a zip archive"
            default: nil
            }
        return "; they start with \(head)" + (looks.map { ", like \($0)" } ?? "")
    }
}

// MARK: - C to Swift

extension RealtimeFeed {
    fileprivate init(_ message: TransitRealtime__FeedMessage) {
        let header = message.header.pointee
        self.init(
            header: Header(
                version: string(header.gtfs_realtime_version) ?? "",
                incrementality: header.has_incrementality != 0 ? Incrementality(rawValue: int(header.incrementality)) : .fullDataset,
                timestamp: header.has_timestamp != 0 ? Int(clamping: header.timestamp) : nil),
            entities: list(message.entity, message.n_entity).map { Entity($0.pointee) })
    }
}

extension RealtimeFeed.Entity {
    fileprivate init(_ entity: TransitRealtime__FeedEntity) {
        self.init(
            id: string(entity.id) ?? "", isDeleted: entity.has_is_deleted != 0 && entity.is_deleted != 0,
            tripUpdate: entity.trip_update.map { RealtimeFeed.TripUpdate($0.pointee) },
            vehicle: entity.vehicle.map { RealtimeFeed.VehiclePosition($0.pointee) })
    }
}

extension RealtimeFeed.TripDescriptor {
    fileprivate init(_ trip: TransitRealtime__TripDescriptor) {
        self.init(
            tripID: string(trip.trip_id), routeID: string(trip.route_id),
            directionID: trip.has_direction_id != 0 ? Int(trip.direction_id) : nil,
            startTime: string(trip.start_time), startDate: string(trip.start_date),
            scheduleRelationship: trip.has_schedule_relationship != 0 ? ScheduleRelationship(rawValue: int(trip.schedule_relationship)) : .scheduled)
    }
}

extension RealtimeFeed.VehicleDescriptor {
    fileprivate init(_ vehicle: TransitRealtime__VehicleDescriptor) {
        self.init(id: string(vehicle.id), label: string(vehicle.label), licensePlate: string(vehicle.license_plate))
    }
}

extension RealtimeFeed.TripUpdate {
    fileprivate init(_ update: TransitRealtime__TripUpdate) {
        self.init(
            // protobuf-c refuses a TripUpdate without its required `trip`; an empty descriptor is a guard only.
            trip: update.trip.map { RealtimeFeed.TripDescriptor($0.pointee) } ?? RealtimeFeed.TripDescriptor(),
            vehicle: update.vehicle.map { RealtimeFeed.VehicleDescriptor($0.pointee) },
            timestamp: update.has_timestamp != 0 ? Int(clamping: update.timestamp) : nil,
            delay: update.has_delay != 0 ? Int(update.delay) : nil,
            stopTimeUpdates: list(update.stop_time_update, update.n_stop_time_update).map { RealtimeFeed.StopTimeUpdate($0.pointee) })
    }
}

extension RealtimeFeed.StopTimeUpdate {
    fileprivate init(_ update: TransitRealtime__TripUpdate__StopTimeUpdate) {
        self.init(
            stopSequence: update.has_stop_sequence != 0 ? Int(update.stop_sequence) : nil, stopID: string(update.stop_id),
            arrival: update.arrival.map { RealtimeFeed.StopTimeEvent($0.pointee) },
            departure: update.departure.map { RealtimeFeed.StopTimeEvent($0.pointee) },
            scheduleRelationship: update.has_schedule_relationship != 0
                ? ScheduleRelationship(rawValue: int(update.schedule_relationship)) : .scheduled)
    }
}

extension RealtimeFeed.StopTimeEvent {
    fileprivate init(_ event: TransitRealtime__TripUpdate__StopTimeEvent) {
        self.init(
            delay: event.has_delay != 0 ? Int(event.delay) : nil, time: event.has_time != 0 ? Int(event.time) : nil,
            uncertainty: event.has_uncertainty != 0 ? Int(event.uncertainty) : nil)
    }
}

extension RealtimeFeed.VehiclePosition {
    fileprivate init(_ position: TransitRealtime__VehiclePosition) {
        self.init(
            trip: position.trip.map { RealtimeFeed.TripDescriptor($0.pointee) },
            vehicle: position.vehicle.map { RealtimeFeed.VehicleDescriptor($0.pointee) },
            currentStopSequence: position.has_current_stop_sequence != 0 ? Int(position.current_stop_sequence) : nil,
            stopID: string(position.stop_id),
            currentStatus: position.has_current_status != 0 ? StopStatus(rawValue: int(position.current_status)) : nil,
            timestamp: position.has_timestamp != 0 ? Int(clamping: position.timestamp) : nil,
            occupancyStatus: position.has_occupancy_status != 0 ? OccupancyStatus(rawValue: int(position.occupancy_status)) : nil,
            occupancyPercentage: position.has_occupancy_percentage != 0 ? Int(position.occupancy_percentage) : nil)
    }
}

/// A C string as a Swift string (`nil` for a NULL pointer: a field that was not set).
private func string(_ pointer: UnsafeMutablePointer<CChar>?) -> String? {
    pointer.map { String(cString: $0) }
}

/// A protobuf-c enum's value as an `Int`; protobuf-c stores enums as `int32` and keeps values our
/// `.proto` does not name.
private func int<E: RawRepresentable>(_ value: E) -> Int where E.RawValue: FixedWidthInteger {
    Int(Int32(truncatingIfNeeded: value.rawValue))
}

/// The elements of a protobuf-c repeated message field.
private func list<T>(_ items: UnsafeMutablePointer<UnsafeMutablePointer<T>?>?, _ count: Int) -> [UnsafeMutablePointer<T>] {
    guard let items else { return [] }
    return (0..<count).compactMap { items[$0] }
}

// MARK: - Swift to C

// The C message is built from `malloc`ed structs and `strdup`ed strings, so that protobuf-c's
// `free_unpacked` (with the default allocator, which is `malloc`/`free`) releases all of it.
// Enumerations at their default (FULL_DATASET, SCHEDULED) are left out, as producers do.

extension RealtimeFeed {
    fileprivate func makeMessage() -> UnsafeMutablePointer<TransitRealtime__FeedMessage> {
        make(transit_realtime__feed_message__init) { message in
            message.header = make(transit_realtime__feed_header__init) { c in
                c.gtfs_realtime_version = strdup(header.version)
                if header.incrementality != .fullDataset { (c.has_incrementality, c.incrementality) = (1, cEnum(header.incrementality.rawValue)) }
                if let timestamp = header.timestamp { (c.has_timestamp, c.timestamp) = (1, UInt64(clamping: timestamp)) }
            }
            (message.entity, message.n_entity) = array(entities.map { $0.makeEntity() })
        }
    }
}

extension RealtimeFeed.Entity {
    fileprivate func makeEntity() -> UnsafeMutablePointer<TransitRealtime__FeedEntity> {
        make(transit_realtime__feed_entity__init) { c in
            c.id = strdup(id)
            if isDeleted { (c.has_is_deleted, c.is_deleted) = (1, 1) }
            c.trip_update = tripUpdate?.makeTripUpdate()
            c.vehicle = vehicle?.makeVehiclePosition()
        }
    }
}

extension RealtimeFeed.TripDescriptor {
    fileprivate func makeTripDescriptor() -> UnsafeMutablePointer<TransitRealtime__TripDescriptor> {
        make(transit_realtime__trip_descriptor__init) { c in
            c.trip_id = duplicate(tripID)
            c.route_id = duplicate(routeID)
            if let directionID { (c.has_direction_id, c.direction_id) = (1, UInt32(clamping: directionID)) }
            c.start_time = duplicate(startTime)
            c.start_date = duplicate(startDate)
            if scheduleRelationship != .scheduled {
                (c.has_schedule_relationship, c.schedule_relationship) = (1, cEnum(scheduleRelationship.rawValue))
            }
        }
    }
}

extension RealtimeFeed.VehicleDescriptor {
    fileprivate func makeVehicleDescriptor() -> UnsafeMutablePointer<TransitRealtime__VehicleDescriptor> {
        make(transit_realtime__vehicle_descriptor__init) { c in
            c.id = duplicate(id)
            c.label = duplicate(label)
            c.license_plate = duplicate(licensePlate)
        }
    }
}

extension RealtimeFeed.TripUpdate {
    fileprivate func makeTripUpdate() -> UnsafeMutablePointer<TransitRealtime__TripUpdate> {
        make(transit_realtime__trip_update__init) { c in
            c.trip = trip.makeTripDescriptor()
            c.vehicle = vehicle?.makeVehicleDescriptor()
            if let timestamp { (c.has_timestamp, c.timestamp) = (1, UInt64(clamping: timestamp)) }
            if let delay { (c.has_delay, c.delay) = (1, Int32(clamping: delay)) }
            (c.stop_time_update, c.n_stop_time_update) = array(stopTimeUpdates.map { $0.makeStopTimeUpdate() })
        }
    }
}

extension RealtimeFeed.StopTimeUpdate {
    fileprivate func makeStopTimeUpdate() -> UnsafeMutablePointer<TransitRealtime__TripUpdate__StopTimeUpdate> {
        make(transit_realtime__trip_update__stop_time_update__init) { c in
            if let stopSequence { (c.has_stop_sequence, c.stop_sequence) = (1, UInt32(clamping: stopSequence)) }
            c.stop_id = duplicate(stopID)
            c.arrival = arrival?.makeStopTimeEvent()
            c.departure = departure?.makeStopTimeEvent()
            if scheduleRelationship != .scheduled {
                (c.has_schedule_relationship, c.schedule_relationship) = (1, cEnum(scheduleRelationship.rawValue))
            }
        }
    }
}

extension RealtimeFeed.StopTimeEvent {
    fileprivate func makeStopTimeEvent() -> UnsafeMutablePointer<TransitRealtime__TripUpdate__StopTimeEvent> {
        make(transit_realtime__trip_update__stop_time_event__init) { c in
            if let delay { (c.has_delay, c.delay) = (1, Int32(clamping: delay)) }
            if let time { (c.has_time, c.time) = (1, Int64(time)) }
            if let uncertainty { (c.has_uncertainty, c.uncertainty) = (1, Int32(clamping: uncertainty)) }
        }
    }
}

extension RealtimeFeed.VehiclePosition {
    fileprivate func makeVehiclePosition() -> UnsafeMutablePointer<TransitRealtime__VehiclePosition> {
        make(transit_realtime__vehicle_position__init) { c in
            c.trip = trip?.makeTripDescriptor()
            c.vehicle = vehicle?.makeVehicleDescriptor()
            if let currentStopSequence { (c.has_current_stop_sequence, c.current_stop_sequence) = (1, UInt32(clamping: currentStopSequence)) }
            c.stop_id = duplicate(stopID)
            if let currentStatus { (c.has_current_status, c.current_status) = (1, cEnum(currentStatus.rawValue)) }
            if let timestamp { (c.has_timestamp, c.timestamp) = (1, UInt64(clamping: timestamp)) }
            if let occupancyStatus { (c.has_occupancy_status, c.occupancy_status) = (1, cEnum(occupancyStatus.rawValue)) }
            if let occupancyPercentage { (c.has_occupancy_percentage, c.occupancy_percentage) = (1, UInt32(clamping: occupancyPercentage)) }
        }
    }
}

/// A `malloc`ed message, set to its defaults by protobuf-c's `init`, then filled in.
private func make<T>(_ initialize: (UnsafeMutablePointer<T>?) -> Void, _ fill: (inout T) -> Void) -> UnsafeMutablePointer<T> {
    guard let raw = malloc(MemoryLayout<T>.size) else { fatalError("out of memory building a GTFS-Realtime message") }
    let pointer = raw.bindMemory(to: T.self, capacity: 1)
    initialize(pointer)
    fill(&pointer.pointee)
    return pointer
}

/// A `malloc`ed array for a repeated message field, with its count (`NULL` and 0 when empty).
private func array<T>(_ items: [UnsafeMutablePointer<T>]) -> (UnsafeMutablePointer<UnsafeMutablePointer<T>?>?, Int) {
    guard !items.isEmpty else { return (nil, 0) }
    guard let raw = malloc(MemoryLayout<UnsafeMutablePointer<T>?>.stride * items.count) else {
        fatalError("out of memory building a GTFS-Realtime message")
    }
    let pointer = raw.bindMemory(to: UnsafeMutablePointer<T>?.self, capacity: items.count)
    for (index, item) in items.enumerated() { (pointer + index).initialize(to: item) }
    return (pointer, items.count)
}

/// A `strdup`ed copy of an optional string (`NULL` when absent).
private func duplicate(_ value: String?) -> UnsafeMutablePointer<CChar>? {
    value.flatMap { strdup($0) }
}

/// A protobuf-c enum value from an `Int` (values our `.proto` does not name are kept).
private func cEnum<E: RawRepresentable>(_ value: Int) -> E where E.RawValue: FixedWidthInteger {
    // The imported C enums' `init(rawValue:)` never fails.
    E(rawValue: E.RawValue(truncatingIfNeeded: Int32(truncatingIfNeeded: value)))!
}
