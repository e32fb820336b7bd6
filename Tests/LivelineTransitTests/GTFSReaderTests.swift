import Foundation
import LivelineTestSupport
import Testing

@testable import LivelineTransit

/// Reading GTFS static feeds (GTFS Schedule reference): the CSV as feeds write it, times past
/// midnight and between timepoints, service days, and the validator's notices.
@Suite struct GTFSReaderTests {
    /// A feed written into a temporary folder, file by file.
    final class Feed {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-gtfs-\(UUID().uuidString)")
        var files: [String: String]

        init(_ files: [String: String] = Feed.minimal) throws {
            self.files = files
            try write()
        }

        func write() throws {
            try? FileManager.default.removeItem(at: folder)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for (name, text) in files { try Data(text.utf8).write(to: folder.appendingPathComponent(name)) }
        }

        /// The folder zipped (inside a folder of its own, as feeds often are), by Python's zipfile.
        func zip(truncatedTo length: Int? = nil) throws -> URL {
            let archive = folder.appendingPathExtension("zip")
            let script = """
                import sys, zipfile, os
                with zipfile.ZipFile(sys.argv[2], "w", zipfile.ZIP_DEFLATED) as z:
                    for name in sorted(os.listdir(sys.argv[1])):
                        z.write(os.path.join(sys.argv[1], name), "feed/" + name)
                """
            let run = try ChildProcess.run("/usr/bin/env", ["python3", "-c", script, folder.path, archive.path], timeout: 30)
            #expect(run.termination == .exited(0), "\(String(decoding: run.errors, as: UTF8.self))")
            if let length {
                let bytes = try Data(contentsOf: archive)
                try bytes.prefix(length).write(to: archive)
            }
            return archive
        }

        func read(today: ServiceDay? = nil) throws -> (feed: GTFSFeed, report: GTFSReport) { try GTFSReader.read(folder, today: today) }

        deinit {
            try? FileManager.default.removeItem(at: folder)
            try? FileManager.default.removeItem(at: folder.appendingPathExtension("zip"))
        }

        /// Two stops, one route, one trip on weekdays of 2026.
        static let minimal: [String: String] = [
            "agency.txt": "agency_id,agency_name,agency_url,agency_timezone\nrnv,rnv,https://rnv.example,Europe/Berlin\n",
            "stops.txt": "stop_id,stop_name,stop_lat,stop_lon\na,Paradeplatz,49.487,8.466\nb,Wasserturm,49.484,8.475\nc,Hauptbahnhof,49.479,8.469\n",
            "routes.txt": "route_id,agency_id,route_short_name,route_long_name,route_type\n5,rnv,5,Mannheim – Heidelberg,0\n",
            "trips.txt": "route_id,service_id,trip_id,trip_headsign\n5,weekday,t1,Heidelberg\n",
            "stop_times.txt":
                "trip_id,arrival_time,departure_time,stop_id,stop_sequence\nt1,08:00:00,08:00:30,a,1\nt1,08:02:00,08:02:30,b,2\nt1,08:05:00,08:05:00,c,3\n",
            "calendar.txt":
                "service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,end_date\nweekday,1,1,1,1,1,0,0,20260101,20261231\n",
        ]
    }

    @Test func aMinimalFeedReadsFromAFolderAndFromAZipWithAFolderInside() throws {
        let feed = try Feed()
        for path in [feed.folder, try feed.zip()] {
            let (read, report) = try GTFSReader.read(path)
            #expect(!report.hasErrors, "\(report)")
            #expect(read.stops.count == 3 && read.trips.count == 1 && read.stopTimeCount == 3)
            #expect(read.stopTimes["t1"]?.map(\.stopID) == ["a", "b", "c"])
            #expect(read.stopTimes["t1"]?.first?.departure == 8 * 3600 + 30)
            #expect(read.timeZone?.identifier == "Europe/Berlin" && read.routes["5"]?.lineName == "5")
        }
    }

    /// Found by `scripts/fuzz.sh gtfs-csv`: Foundation's file readers leaked a 4 KiB buffer for
    /// every empty file; the archive reads a folder's files through a file handle.
    @Test func anEmptyFileInAFolderReadsAsNoBytes() throws {
        let feed = try Feed()
        feed.files["calendar_dates.txt"] = ""
        try feed.write()
        let archive = try GTFSArchive(path: feed.folder)
        #expect(try archive.file("calendar_dates.txt") == [])
        #expect(try archive.file("stops.txt") == Array((feed.files["stops.txt"] ?? "").utf8))
        let (read, _) = try feed.read()
        #expect(read.stops.count == 3)
    }

    @Test func csvWithAByteOrderMarkQuotesCRLFAndColumnsInAnyOrder() throws {
        let feed = try Feed()
        feed.files["stops.txt"] =
            "\u{FEFF}stop_name,stop_id,extra\r\n\"Paradeplatz, Mannheim\",a,x\r\n\"Wasser\"\"turm\",b,\r\n\"Haupt\nbahnhof\",c,\r\n"
        try feed.write()
        let (read, report) = try feed.read()
        #expect(!report.hasErrors, "\(report)")
        #expect(read.stops["a"]?.name == "Paradeplatz, Mannheim")
        #expect(read.stops["b"]?.name == "Wasser\"turm")
        #expect(read.stops["c"]?.name == "Haupt\nbahnhof", "a quoted line break stays in the field")
    }

    /// Found by `scripts/fuzz.sh gtfs-csv`: a stop time with a run of digits longer than an Int
    /// holds trapped on arithmetic overflow; it is no time, a notice like any other bad time.
    @Test func aTimeWithTooManyDigitsIsNoTime() throws {
        let long = String(repeating: "5", count: 46)
        for bad in ["05:\(long):00", "\(long):00:00", "05:00:\(long)", "1000:00:00", "05:000:00"] {
            #expect(GTFSTime.seconds(bad) == nil, "\(bad)")
        }
        #expect(GTFSTime.seconds("100:00:00") == 100 * 3600)
        let feed = try Feed()
        feed.files["stop_times.txt"] =
            "trip_id,arrival_time,departure_time,stop_id,stop_sequence\nt1,08:00:00,08:00:30,a,1\nt1,08:02:00,08:\(long):00,b,2\nt1,08:05:00,08:05:00,c,3\n"
        try feed.write()
        let (_, report) = try feed.read()
        #expect(report.hasErrors, "\(report)")
    }

    @Test func timesPastMidnightCountOnFromTheServiceDay() throws {
        #expect(GTFSTime.seconds("25:10:00") == 25 * 3600 + 600)
        #expect(GTFSTime.seconds("8:05:00") == 8 * 3600 + 300)
        for bad in ["25:60:00", "8:5:00", "08:00", "ab:cd:ef", "", "-1:00:00"] { #expect(GTFSTime.seconds(bad) == nil, "\(bad)") }
        let day = try #require(ServiceDay("20260618"))
        let zone = try #require(TimeZone(identifier: "Europe/Berlin"))
        // 25:10:00 of June 18 is 01:10 on June 19, Berlin summer time (UTC+2): 23:10 UTC.
        #expect(day.date(25 * 3600 + 600, in: zone) == Date(timeIntervalSince1970: 1_781_824_200))
    }

    @Test func aServiceDayAcrossADaylightSavingChangeCountsFromNoonMinusTwelveHours() throws {
        let zone = try #require(TimeZone(identifier: "Europe/Berlin"))
        // 2026-03-29: clocks go from 02:00 to 03:00. Noon is 10:00 UTC; noon − 12 h is 22:00 UTC
        // the day before, i.e. 23:00 local time — not midnight.
        let spring = try #require(ServiceDay("20260329"))
        #expect(spring.reference(in: zone) == Date(timeIntervalSince1970: 1_774_735_200))
        // So 08:00:00 that day is 08:00 on the wall clock (summer time, 06:00 UTC), not 09:00.
        #expect(spring.date(8 * 3600, in: zone) == Date(timeIntervalSince1970: 1_774_764_000))
        // 2026-10-25: clocks go back from 03:00 to 02:00. Noon is 11:00 UTC; noon − 12 h is 23:00
        // UTC the day before, 01:00 local summer time.
        let autumn = try #require(ServiceDay("20261025"))
        #expect(autumn.reference(in: zone) == Date(timeIntervalSince1970: 1_792_882_800))
        #expect(ServiceDay("20260618")?.weekday == 4 && ServiceDay("20260101")?.previous == ServiceDay("20251231"))
    }

    @Test func blankTimesBetweenTimepointsAreInterpolated() throws {
        let feed = try Feed()
        feed.files["stops.txt"] = "stop_id,stop_name\na,A\nb,B\nc,C\nd,D\n"
        feed.files["stop_times.txt"] =
            "trip_id,arrival_time,departure_time,stop_id,stop_sequence,timepoint\nt1,08:00:00,08:00:00,a,1,1\nt1,,,b,2,0\nt1,,,c,3,0\nt1,08:09:00,08:09:00,d,4,1\n"
        try feed.write()
        let (read, report) = try feed.read()
        #expect(!report.hasErrors, "\(report)")
        let times = try #require(read.stopTimes["t1"])
        #expect(times.map(\.arrival) == [8 * 3600, 8 * 3600 + 180, 8 * 3600 + 360, 8 * 3600 + 540])
        #expect(times.map(\.timepoint) == [true, false, false, true])

        // With shape_dist_traveled, by distance.
        feed.files["stop_times.txt"] =
            "trip_id,arrival_time,departure_time,stop_id,stop_sequence,shape_dist_traveled\nt1,08:00:00,08:00:00,a,1,0\nt1,,,b,2,100\nt1,08:10:00,08:10:00,c,3,1000\n"
        try feed.write()
        let byDistance = try #require(try feed.read().feed.stopTimes["t1"])
        #expect(byDistance.map(\.arrival) == [8 * 3600, 8 * 3600 + 60, 8 * 3600 + 600])

        // A distance that is no finite number counts as none; one beyond the ends stays between them.
        for (middle, expected) in [("nan", 300), ("inf", 300), ("1e308", 600), ("-1e308", 0)] {
            feed.files["stop_times.txt"] =
                "trip_id,arrival_time,departure_time,stop_id,stop_sequence,shape_dist_traveled\nt1,08:00:00,08:00:00,a,1,0\nt1,,,b,2,\(middle)\nt1,08:10:00,08:10:00,c,3,1000\n"
            try feed.write()
            let odd = try #require(try feed.read().feed.stopTimes["t1"])
            #expect(odd.map(\.arrival) == [8 * 3600, 8 * 3600 + expected, 8 * 3600 + 600], "distance \(middle)")
        }
    }

    @Test func aFeedWithOnlyCalendarDatesRunsOnItsDates() throws {
        let feed = try Feed()
        feed.files["calendar.txt"] = nil
        feed.files["calendar_dates.txt"] = "service_id,date,exception_type\nweekday,20260618,1\nweekday,20260619,1\n"
        try feed.write()
        let (read, report) = try feed.read()
        #expect(!report.hasErrors, "\(report)")
        #expect(read.runs("weekday", on: try #require(ServiceDay("20260618"))))
        #expect(!read.runs("weekday", on: try #require(ServiceDay("20260620"))))
    }

    @Test func calendarDatesAddAndRemoveServiceOnTopOfTheCalendar() throws {
        let feed = try Feed()
        feed.files["calendar_dates.txt"] = "service_id,date,exception_type\nweekday,20261225,2\nweekday,20261226,1\n"
        try feed.write()
        let read = try feed.read().feed
        #expect(read.runs("weekday", on: try #require(ServiceDay("20261224"))), "a Thursday")
        #expect(!read.runs("weekday", on: try #require(ServiceDay("20261225"))), "a holiday removed")
        #expect(read.runs("weekday", on: try #require(ServiceDay("20261226"))), "a Saturday added")
        #expect(!read.runs("weekday", on: try #require(ServiceDay("20261227"))), "a Sunday")
    }

    @Test func whatIsWrongIsReportedAsAValidatorWouldWithFileAndLine() throws {
        let feed = try Feed()
        feed.files["stop_times.txt"] =
            "trip_id,arrival_time,departure_time,stop_id,stop_sequence\nt1,08:00:00,08:00:30,a,1\nt1,07:59:00,07:59:30,b,2\nt1,08:05:00,8:5,c,3\nt1,08:06:00,08:06:00,nowhere,4\nghost,08:00:00,08:00:00,a,1\n"
        feed.files["trips.txt"] = "route_id,service_id,trip_id\n5,weekday,t1\n7,sometimes,t2\n"
        feed.files["calendar.txt"] =
            "service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,end_date\nweekday,1,1,1,1,1,0,0,20200101,20201231\n"
        try feed.write()
        let (_, report) = try feed.read(today: ServiceDay("20260618"))
        #expect(report.hasErrors)
        #expect(report.count("stop_time_decreasing") == 1)
        #expect(report.count("invalid_time") == 1)
        #expect(report.count("foreign_key_violation") == 4, "\(report)")  // route 7, service sometimes, stop nowhere, trip ghost
        #expect(report.count("expired_calendar") == 1)

        // Dates must be YYYYMMDD: a dashed one would never match a service day.
        feed.files["calendar.txt"] =
            "service_id,monday,tuesday,wednesday,thursday,friday,saturday,sunday,start_date,end_date\nweekday,1,1,1,1,1,0,0,2026-01-01,20261231\n"
        try feed.write()
        #expect(try feed.read().report.count("invalid_date") == 1)
        let decreasing = try #require(report.notices.first { $0.code == "stop_time_decreasing" })
        #expect(decreasing.severity == .error && decreasing.samples.first?.file == "stop_times.txt" && decreasing.samples.first?.line == 3)
        let text = report.description
        #expect(
            text.contains("ERROR foreign_key_violation ×4") && text.contains("stop_times.txt:5: stop_id 'nowhere' is not in stops.txt"), "\(text)")
        #expect(text.contains("WARNING expired_calendar ×1"))
    }

    @Test func missingFilesAndColumnsAreErrorsNamingThem() throws {
        let feed = try Feed()
        feed.files["stop_times.txt"] = "trip_id,arrival_time,stop_id,stop_sequence\nt1,08:00:00,a,1\n"
        feed.files["calendar.txt"] = nil
        feed.files["agency.txt"] = nil
        try feed.write()
        let (_, report) = try feed.read()
        #expect(report.hasErrors)
        let text = report.description
        #expect(text.contains("stop_times.txt:1: stop_times.txt has no column departure_time"), "\(text)")
        #expect(text.contains("the feed has no agency.txt") && text.contains("neither calendar.txt nor calendar_dates.txt"), "\(text)")
    }

    @Test func aDamagedArchiveOrAFileThatIsNoCSVCannotBeRead() throws {
        let feed = try Feed()
        let whole = try Data(contentsOf: try feed.zip())
        let truncated = try feed.zip(truncatedTo: whole.count / 2)
        let error = #expect(throws: GTFSError.self) { try GTFSReader.read(truncated) }
        #expect(error?.message.contains("no readable zip archive") == true, "\(String(describing: error))")
        feed.files["stops.txt"] = "stop_id,stop_name\na,\"Para\"deplatz\n"
        try feed.write()
        let csv = #expect(throws: GTFSError.self) { try feed.read() }
        #expect(csv?.message.contains("stops.txt is no valid CSV") == true, "\(String(describing: csv))")
        #expect(throws: GTFSError.self) { try GTFSReader.read(feed.folder.appendingPathComponent("nothing-here")) }
    }
}
