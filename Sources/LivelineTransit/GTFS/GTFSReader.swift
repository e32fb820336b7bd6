import Foundation

/// Reads a GTFS static feed (GTFS Schedule reference) from a `.zip` or a folder and checks it as
/// a validator would: required files and columns, times, foreign keys, stop times that go
/// backwards, calendars that have all expired. Blank times between timepoints are interpolated.
public enum GTFSReader {
    /// The feed and its report. Throws only when the feed cannot be read at all (no such path, a
    /// damaged archive, a file that is no CSV); everything else is a notice of the report.
    public static func read(_ path: URL, today: ServiceDay? = nil) throws -> (feed: GTFSFeed, report: GTFSReport) {
        let (feed, report, _) = try readWithFingerprint(path, today: today)
        return (feed, report)
    }

    /// ``read(_:today:)``, and the hash of the feed's files (``LoadedFeed/fingerprint``).
    public static func readWithFingerprint(_ path: URL, today: ServiceDay? = nil) throws -> (feed: GTFSFeed, report: GTFSReport, fingerprint: String)
    {
        let archive = try GTFSArchive(path: path)
        var reading = Reading(archive: archive)
        try reading.readAll()
        reading.checkCalendars(today: today)
        return (reading.feed, reading.report, try archive.fingerprint())
    }

    /// The files a feed must have; and one of `calendar.txt` and `calendar_dates.txt`.
    static let requiredFiles = ["agency.txt", "stops.txt", "routes.txt", "trips.txt", "stop_times.txt"]

    /// The columns each file must have.
    static let requiredColumns: [String: [String]] = [
        "agency.txt": ["agency_name", "agency_timezone"],
        "stops.txt": ["stop_id"],
        "routes.txt": ["route_id", "route_type"],
        "trips.txt": ["route_id", "service_id", "trip_id"],
        "stop_times.txt": ["trip_id", "arrival_time", "departure_time", "stop_id", "stop_sequence"],
        "calendar.txt": ["service_id", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday", "start_date", "end_date"],
        "calendar_dates.txt": ["service_id", "date", "exception_type"],
    ]

    struct Reading {
        let archive: GTFSArchive
        var feed = GTFSFeed()
        var report = GTFSReport()

        /// The table of `name` when it is there and has its required columns; nil (with a
        /// notice) otherwise.
        mutating func table(_ name: String, required: Bool) throws -> CSVTable? {
            guard let bytes = try archive.file(name) else {
                if required { report.add("missing_required_file", .error, file: name, "the feed has no \(name)") }
                return nil
            }
            let table = try CSVTable(bytes, file: name)
            let missing = (GTFSReader.requiredColumns[name] ?? []).filter { table.column($0) == nil }
            for column in missing {
                report.add("missing_required_column", .error, file: name, line: 1, "\(name) has no column \(column)")
            }
            return missing.isEmpty ? table : nil
        }

        mutating func readAll() throws {
            if let table = try table("agency.txt", required: true) { readAgencies(table) }
            if let table = try table("stops.txt", required: true) { readStops(table) }
            if let table = try table("routes.txt", required: true) { readRoutes(table) }
            let calendar = try table("calendar.txt", required: false)
            let dates = try table("calendar_dates.txt", required: false)
            if calendar == nil && dates == nil && !archive.names.contains("calendar.txt") && !archive.names.contains("calendar_dates.txt") {
                report.add(
                    "missing_calendar_and_calendar_date_files", .error, file: "calendar.txt",
                    "the feed has neither calendar.txt nor calendar_dates.txt")
            }
            if let calendar { readCalendar(calendar) }
            if let dates { readCalendarDates(dates) }
            if let table = try table("trips.txt", required: true) { readTrips(table) }
            if let table = try table("stop_times.txt", required: true) { readStopTimes(table) }
        }

        // MARK: Files

        mutating func readAgencies(_ table: CSVTable) {
            let id = table.column("agency_id"), name = table.column("agency_name")!, zone = table.column("agency_timezone")!
            for row in 0..<table.rowCount {
                let timezone = table.value(row, zone)
                if TimeZone(identifier: timezone) == nil {
                    report.add(
                        "invalid_timezone", .error, file: "agency.txt", line: table.lines[row], "agency_timezone '\(timezone)' is no time zone name")
                }
                feed.agencies.append(GTFSAgency(id: id.map { table.value(row, $0) }, name: table.value(row, name), timezone: timezone))
            }
            if Set(feed.agencies.map(\.timezone)).count > 1 {
                report.add("inconsistent_agency_timezone", .error, file: "agency.txt", "the agencies' time zones differ")
            }
        }

        mutating func readStops(_ table: CSVTable) {
            let id = table.column("stop_id")!, name = table.column("stop_name"), lat = table.column("stop_lat")
            let lon = table.column("stop_lon"), parent = table.column("parent_station")
            for row in 0..<table.rowCount {
                let stopID = table.value(row, id)
                guard !stopID.isEmpty else {
                    report.add("missing_required_field", .error, file: "stops.txt", line: table.lines[row], "stop_id is empty")
                    continue
                }
                if feed.stops[stopID] != nil {
                    report.add("duplicate_key", .error, file: "stops.txt", line: table.lines[row], "stop_id '\(stopID)' is there twice")
                }
                feed.stops[stopID] = GTFSStop(
                    id: stopID, name: name.map { table.value(row, $0) } ?? "", latitude: lat.flatMap { Double(table.value(row, $0)) },
                    longitude: lon.flatMap { Double(table.value(row, $0)) },
                    parentStation: parent.map { table.value(row, $0) }.flatMap { $0.isEmpty ? nil : $0 })
            }
        }

        mutating func readRoutes(_ table: CSVTable) {
            let id = table.column("route_id")!, type = table.column("route_type")!, agency = table.column("agency_id")
            let short = table.column("route_short_name"), long = table.column("route_long_name")
            for row in 0..<table.rowCount {
                let routeID = table.value(row, id)
                guard let routeType = Int(table.value(row, type)) else {
                    report.add(
                        "invalid_integer", .error, file: "routes.txt", line: table.lines[row],
                        "route_type '\(table.value(row, type))' is no whole number")
                    continue
                }
                feed.routes[routeID] = GTFSRoute(
                    id: routeID, agencyID: agency.map { table.value(row, $0) }, shortName: short.map { table.value(row, $0) },
                    longName: long.map { table.value(row, $0) }, type: routeType)
            }
        }

        mutating func readCalendar(_ table: CSVTable) {
            let columns = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"].map { table.column($0)! }
            let id = table.column("service_id")!, start = table.column("start_date")!, end = table.column("end_date")!
            for row in 0..<table.rowCount {
                let startDate = table.value(row, start), endDate = table.value(row, end)
                guard ServiceDay(gtfsDate: startDate) != nil, ServiceDay(gtfsDate: endDate) != nil else {
                    report.add(
                        "invalid_date", .error, file: "calendar.txt", line: table.lines[row],
                        "start_date '\(startDate)' or end_date '\(endDate)' is no YYYYMMDD date")
                    continue
                }
                feed.calendars[table.value(row, id)] = GTFSCalendar(
                    serviceID: table.value(row, id), weekdays: columns.map { table.value(row, $0) == "1" }, startDate: startDate, endDate: endDate)
            }
        }

        mutating func readCalendarDates(_ table: CSVTable) {
            let id = table.column("service_id")!, date = table.column("date")!, type = table.column("exception_type")!
            for row in 0..<table.rowCount {
                let day = table.value(row, date)
                guard ServiceDay(gtfsDate: day) != nil, let exception = Int(table.value(row, type)), exception == 1 || exception == 2 else {
                    report.add(
                        "invalid_date", .error, file: "calendar_dates.txt", line: table.lines[row],
                        "date '\(day)' is no YYYYMMDD date or exception_type is not 1 or 2")
                    continue
                }
                feed.calendarDates[table.value(row, id), default: []].append(
                    GTFSCalendarDate(serviceID: table.value(row, id), date: day, exceptionType: exception))
            }
        }

        mutating func readTrips(_ table: CSVTable) {
            let id = table.column("trip_id")!, route = table.column("route_id")!, service = table.column("service_id")!
            let headsign = table.column("trip_headsign"), direction = table.column("direction_id")
            for row in 0..<table.rowCount {
                let trip = GTFSTrip(
                    id: table.value(row, id), routeID: table.value(row, route), serviceID: table.value(row, service),
                    headsign: headsign.map { table.value(row, $0) }, directionID: direction.flatMap { Int(table.value(row, $0)) })
                if feed.routes[trip.routeID] == nil {
                    report.add(
                        "foreign_key_violation", .error, file: "trips.txt", line: table.lines[row], "route_id '\(trip.routeID)' is not in routes.txt")
                }
                if feed.calendars[trip.serviceID] == nil && feed.calendarDates[trip.serviceID] == nil {
                    report.add(
                        "foreign_key_violation", .error, file: "trips.txt", line: table.lines[row],
                        "service_id '\(trip.serviceID)' is in neither calendar.txt nor calendar_dates.txt")
                }
                if feed.trips[trip.id] != nil {
                    report.add("duplicate_key", .error, file: "trips.txt", line: table.lines[row], "trip_id '\(trip.id)' is there twice")
                }
                feed.trips[trip.id] = trip
            }
        }

        /// A stop time as read: times nil where blank.
        struct Raw {
            var stopTime: GTFSStopTime
            var arrival: Int?
            var departure: Int?
            var line: Int
        }

        mutating func readStopTimes(_ table: CSVTable) {
            let trip = table.column("trip_id")!, arrival = table.column("arrival_time")!, departure = table.column("departure_time")!
            let stop = table.column("stop_id")!, sequence = table.column("stop_sequence")!, distance = table.column("shape_dist_traveled")
            let timepoint = table.column("timepoint")
            var byTrip: [String: [Raw]] = [:]
            for row in 0..<table.rowCount {
                let line = table.lines[row]
                let tripID = table.value(row, trip), stopID = table.value(row, stop)
                guard let stopSequence = Int(table.value(row, sequence)), stopSequence >= 0 else {
                    report.add(
                        "invalid_integer", .error, file: "stop_times.txt", line: line,
                        "stop_sequence '\(table.value(row, sequence))' is no whole number ≥ 0")
                    continue
                }
                func time(_ column: Int, _ name: String) -> Int?? {
                    let text = table.value(row, column)
                    if text.utf8.allSatisfy({ $0 == 0x20 || $0 == 0x09 }) { return .some(nil) }
                    guard let seconds = GTFSTime.seconds(text) else {
                        report.add("invalid_time", .error, file: "stop_times.txt", line: line, "\(name) '\(text)' is no time HH:MM:SS")
                        return nil
                    }
                    return .some(seconds)
                }
                guard let arrivalTime = time(arrival, "arrival_time"), let departureTime = time(departure, "departure_time") else { continue }
                if feed.trips[tripID] == nil {
                    report.add("foreign_key_violation", .error, file: "stop_times.txt", line: line, "trip_id '\(tripID)' is not in trips.txt")
                }
                if feed.stops[stopID] == nil {
                    report.add("foreign_key_violation", .error, file: "stop_times.txt", line: line, "stop_id '\(stopID)' is not in stops.txt")
                }
                let stopTime = GTFSStopTime(
                    tripID: tripID, stopSequence: stopSequence, stopID: stopID, arrival: arrivalTime ?? departureTime ?? 0,
                    departure: departureTime ?? arrivalTime ?? 0, timepoint: timepoint.map { table.value(row, $0) != "0" } ?? true,
                    shapeDistanceTraveled: distance.flatMap { Double(table.value(row, $0)) }.flatMap { $0.isFinite ? $0 : nil })
                byTrip[tripID, default: []].append(Raw(stopTime: stopTime, arrival: arrivalTime, departure: departureTime, line: line))
            }
            for (tripID, raws) in byTrip {
                if let times = interpolated(raws.sorted { $0.stopTime.stopSequence < $1.stopTime.stopSequence }, trip: tripID) {
                    feed.stopTimes[tripID] = times
                }
            }
            for tripID in feed.trips.keys where feed.stopTimes[tripID] == nil && byTrip[tripID] == nil {
                report.add("unusable_trip", .warning, file: "trips.txt", "trip '\(tripID)' has no stop times")
            }
        }

        /// The trip's stop times with every blank time filled in between the timepoints around it
        /// (by `shape_dist_traveled` where the stops have it, else evenly); checks that they never
        /// go backwards. Nil (with a notice) when the first or last stop has no time.
        mutating func interpolated(_ raws: [Raw], trip: String) -> [GTFSStopTime]? {
            guard let first = raws.first, let last = raws.last else { return nil }
            guard first.arrival != nil || first.departure != nil, last.arrival != nil || last.departure != nil else {
                report.add(
                    "missing_trip_edge", .error, file: "stop_times.txt", line: first.line, "trip '\(trip)' has no time at its first or last stop")
                return nil
            }
            var times = raws.map(\.stopTime)
            var index = 0
            while index < raws.count {
                guard raws[index].arrival == nil && raws[index].departure == nil else {
                    index += 1
                    continue
                }
                let before = index - 1
                var after = index
                while raws[after].arrival == nil && raws[after].departure == nil { after += 1 }
                let from = times[before].departure, to = times[after].arrival
                let distances = (before...after).map { times[$0].shapeDistanceTraveled }
                for blank in index..<after {
                    let share: Double
                    if let start = distances.first!, let end = distances.last!, let here = distances[blank - before], end > start,
                        case let measured = (here - start) / (end - start), measured.isFinite
                    {
                        share = min(1, max(0, measured))
                    } else {
                        share = Double(blank - before) / Double(after - before)
                    }
                    let time = from + Int((Double(to - from) * share).rounded())
                    times[blank].arrival = time
                    times[blank].departure = time
                    times[blank].timepoint = false
                }
                index = after
            }
            for position in times.indices {
                if times[position].departure < times[position].arrival {
                    report.add(
                        "stop_time_with_departure_before_arrival", .error, file: "stop_times.txt", line: raws[position].line,
                        "trip '\(trip)' departs stop_sequence \(times[position].stopSequence) before it arrives")
                }
                if position > 0, times[position].arrival < times[position - 1].departure {
                    report.add(
                        "stop_time_decreasing", .error, file: "stop_times.txt", line: raws[position].line,
                        "trip '\(trip)' arrives at stop_sequence \(times[position].stopSequence) (\(GTFSTime.text(times[position].arrival))) before it left the stop before (\(GTFSTime.text(times[position - 1].departure)))"
                    )
                }
                if position > 0, times[position].stopSequence == times[position - 1].stopSequence {
                    report.add(
                        "duplicate_key", .error, file: "stop_times.txt", line: raws[position].line,
                        "trip '\(trip)' has stop_sequence \(times[position].stopSequence) twice")
                }
            }
            return times
        }

        /// A warning when every service of the feed has ended before `today`.
        mutating func checkCalendars(today: ServiceDay?) {
            guard let today else { return }
            let ends = feed.calendars.values.map(\.endDate) + feed.calendarDates.values.flatMap { $0.filter { $0.exceptionType == 1 }.map(\.date) }
            if let last = ends.max(), last < today.gtfs {
                report.add("expired_calendar", .warning, file: "calendar.txt", "every service ended before today (\(today)); the last on \(last)")
            }
        }
    }
}
