import Foundation
import Testing

@testable import LivelineTransit
import LivelineTransitModel

@Suite struct RealtimePredictionTests {
    private static let berlin = TimeZone(identifier: "Europe/Berlin")!
    /// 2 June 2025 (no DST change): noon minus 12 h is midnight, 2025-06-01T22:00:00Z.
    private static let day = Date(timeIntervalSince1970: 1_748_815_200)

    /// Twenty stops, `stop_sequence` 1…20, stop ids `S1`…`S20`; stop n arrives at 08:00 + 2 min
    /// × (n − 1) and leaves 30 s later.
    private static let twentyStops: [GTFSStopTime] = (1...20).map { n in
        let arrival = 8 * 3600 + 120 * (n - 1)
        return GTFSStopTime(tripID: "t", stopSequence: n, stopID: "S\(n)", arrival: arrival, departure: arrival + 30)
    }

    private func at(_ seconds: Int) -> Date { Self.day.addingTimeInterval(TimeInterval(seconds)) }

    private func update(_ stops: [RealtimeFeed.StopTimeUpdate], delay: Int? = nil) -> RealtimeFeed.TripUpdate {
        RealtimeFeed.TripUpdate(trip: RealtimeFeed.TripDescriptor(tripID: "t"), delay: delay, stopTimeUpdates: stops)
    }

    private func delayed(_ sequence: Int, by delay: Int) -> RealtimeFeed.StopTimeUpdate {
        RealtimeFeed.StopTimeUpdate(stopSequence: sequence, arrival: RealtimeFeed.StopTimeEvent(delay: delay))
    }

    /// Expects stops (by `stop_sequence`) to have exactly `delay` (`nil`: no prediction), with
    /// the times that delay gives against the schedule.
    private func expect(
        _ predictions: [RealtimePrediction], _ sequences: ClosedRange<Int>, delay: Int?, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for prediction in predictions where sequences.contains(prediction.stopSequence) {
            let stop = Self.twentyStops.first { $0.stopSequence == prediction.stopSequence }!
            let what = "stop_sequence \(prediction.stopSequence)"
            #expect(prediction.scheduledArrival == at(stop.arrival), "\(what)", sourceLocation: sourceLocation)
            #expect(prediction.scheduledDeparture == at(stop.departure), "\(what)", sourceLocation: sourceLocation)
            #expect(prediction.skipped == false, "\(what)", sourceLocation: sourceLocation)
            if let delay {
                #expect(prediction.delay == delay, "\(what)", sourceLocation: sourceLocation)
                #expect(prediction.arrivalDelay == delay, "\(what)", sourceLocation: sourceLocation)
                #expect(prediction.departureDelay == delay, "\(what)", sourceLocation: sourceLocation)
                #expect(prediction.arrival == at(stop.arrival + delay), "\(what)", sourceLocation: sourceLocation)
                #expect(prediction.departure == at(stop.departure + delay), "\(what)", sourceLocation: sourceLocation)
                #expect(prediction.hasRealtime, "\(what)", sourceLocation: sourceLocation)
            } else {
                #expect(prediction.delay == nil, "\(what)", sourceLocation: sourceLocation)
                #expect(prediction.arrival == nil, "\(what)", sourceLocation: sourceLocation)
                #expect(prediction.departure == nil, "\(what)", sourceLocation: sourceLocation)
                #expect(!prediction.hasRealtime, "\(what)", sourceLocation: sourceLocation)
                #expect(prediction.expectedArrival == at(stop.arrival), "\(what)", sourceLocation: sourceLocation)
            }
        }
    }

    // MARK: The reference's examples

    /// https://gtfs.org/documentation/realtime/feed-entities/trip-updates/, example 2.
    @Test func theReferenceExampleDelaysPropagateUntilTheNextUpdate() {
        let predictions = RealtimePrediction.apply(
            update([delayed(3, by: 300), delayed(8, by: 60), RealtimeFeed.StopTimeUpdate(stopSequence: 10)]), to: Self.twentyStops,
            serviceDay: Self.day)
        #expect(predictions.count == 20)
        #expect(predictions.map(\.stopSequence) == Array(1...20))
        expect(predictions, 1...2, delay: nil)
        expect(predictions, 3...7, delay: 300)
        expect(predictions, 8...9, delay: 60)
        expect(predictions, 10...20, delay: nil)
    }

    @Test func aSkippedStopIsSkippedAndTheDelayGoesOnPastIt() {
        let skip = RealtimeFeed.StopTimeUpdate(stopSequence: 4, scheduleRelationship: .skipped)
        let predictions = RealtimePrediction.apply(update([delayed(2, by: 120), skip]), to: Self.twentyStops, serviceDay: Self.day)
        expect(predictions, 2...3, delay: 120)
        #expect(predictions[3].skipped)
        #expect(predictions[3].hasRealtime)
        #expect(predictions[3].arrival == nil && predictions[3].departure == nil && predictions[3].delay == nil)
        #expect(predictions[3].expectedArrival == at(Self.twentyStops[3].arrival))
        expect(predictions, 5...20, delay: 120)
    }

    @Test func noDataEndsThePredictionUntilTheNextUpdateWithData() {
        let noData = RealtimeFeed.StopTimeUpdate(stopSequence: 5, scheduleRelationship: .noData)
        let predictions = RealtimePrediction.apply(
            update([delayed(2, by: 120), noData, delayed(9, by: 30)]), to: Self.twentyStops, serviceDay: Self.day)
        expect(predictions, 1...1, delay: nil)
        expect(predictions, 2...4, delay: 120)
        expect(predictions, 5...8, delay: nil)
        expect(predictions, 9...20, delay: 30)
    }

    @Test func timeWinsOverDelayAndItsDelayPropagates() {
        let stop3 = Self.twentyStops[2]
        let onTimePlus90 = Int(at(stop3.arrival).timeIntervalSince1970) + 90
        let stopUpdate = RealtimeFeed.StopTimeUpdate(stopSequence: 3, arrival: RealtimeFeed.StopTimeEvent(delay: 600, time: onTimePlus90))
        let predictions = RealtimePrediction.apply(update([stopUpdate]), to: Self.twentyStops, serviceDay: Self.day)
        #expect(predictions[2].arrival == Date(timeIntervalSince1970: TimeInterval(onTimePlus90)))
        expect(predictions, 3...20, delay: 90)
    }

    @Test func aTimeAtEitherEndOfInt64GivesADelayInsteadOfATrap() {
        for time in [Int(Int64.min), Int(Int64.max)] {
            let stopUpdate = RealtimeFeed.StopTimeUpdate(stopSequence: 3, arrival: RealtimeFeed.StopTimeEvent(time: time))
            let predictions = RealtimePrediction.apply(update([stopUpdate]), to: Self.twentyStops, serviceDay: Self.day)
            let delay = try? #require(predictions[2].delay)
            #expect(delay.map { abs($0) >= 1_000_000_000 } == true, "time \(time): delay \(String(describing: delay))")
        }
    }

    @Test func aMissingDepartureTakesTheArrivalsDelayAndAMissingArrivalTheDepartures() {
        let arrivalOnly = RealtimeFeed.StopTimeUpdate(stopSequence: 2, arrival: RealtimeFeed.StopTimeEvent(delay: 45))
        let departureOnly = RealtimeFeed.StopTimeUpdate(stopSequence: 6, departure: RealtimeFeed.StopTimeEvent(delay: -20))
        let predictions = RealtimePrediction.apply(update([arrivalOnly, departureOnly]), to: Self.twentyStops, serviceDay: Self.day)
        expect(predictions, 2...5, delay: 45)
        expect(predictions, 6...20, delay: -20)
    }

    @Test func theDepartureDelayIsWhatPropagates() {
        // Late in, but a shorter dwell makes up a minute: the next stops get the departure's delay.
        let stopUpdate = RealtimeFeed.StopTimeUpdate(
            stopSequence: 4, arrival: RealtimeFeed.StopTimeEvent(delay: 300), departure: RealtimeFeed.StopTimeEvent(delay: 240))
        let predictions = RealtimePrediction.apply(update([stopUpdate]), to: Self.twentyStops, serviceDay: Self.day)
        #expect(predictions[3].arrivalDelay == 300)
        #expect(predictions[3].departureDelay == 240)
        #expect(predictions[3].arrival == at(Self.twentyStops[3].arrival + 300))
        #expect(predictions[3].departure == at(Self.twentyStops[3].departure + 240))
        expect(predictions, 5...20, delay: 240)
    }

    @Test func updatesWithoutAnyEventEndThePredictionLikeNoData() {
        let uncertaintyOnly = RealtimeFeed.StopTimeUpdate(stopSequence: 6, arrival: RealtimeFeed.StopTimeEvent(uncertainty: 30))
        let predictions = RealtimePrediction.apply(update([delayed(3, by: 60), uncertaintyOnly]), to: Self.twentyStops, serviceDay: Self.day)
        expect(predictions, 3...5, delay: 60)
        expect(predictions, 6...20, delay: nil)
    }

    @Test func updatesThatMatchNoStopAreIgnored() {
        let unknown =
            [RealtimeFeed.StopTimeUpdate(stopSequence: 99, arrival: RealtimeFeed.StopTimeEvent(delay: 999))]
            + [RealtimeFeed.StopTimeUpdate(stopID: "elsewhere", arrival: RealtimeFeed.StopTimeEvent(delay: 999))]
        let predictions = RealtimePrediction.apply(update([delayed(5, by: 60)] + unknown), to: Self.twentyStops, serviceDay: Self.day)
        expect(predictions, 1...4, delay: nil)
        expect(predictions, 5...20, delay: 60)
    }

    // MARK: Matching by stop_id

    /// A loop: A, B, C, A, D (stop_sequence 10…50); updates by stop_id take the visits in order.
    @Test func aStopVisitedTwiceIsMatchedByStopIDInTripOrder() {
        let loop = zip([10, 20, 30, 40, 50], ["A", "B", "C", "A", "D"]).enumerated().map { index, stop in
            GTFSStopTime(tripID: "loop", stopSequence: stop.0, stopID: stop.1, arrival: 9 * 3600 + 300 * index, departure: 9 * 3600 + 300 * index)
        }
        func byStopID(_ id: String, _ delay: Int) -> RealtimeFeed.StopTimeUpdate {
            RealtimeFeed.StopTimeUpdate(stopID: id, arrival: RealtimeFeed.StopTimeEvent(delay: delay))
        }
        let twice = RealtimePrediction.apply(update([byStopID("A", 60), byStopID("A", 180)]), to: loop, serviceDay: Self.day)
        #expect(twice.map(\.delay) == [60, 60, 60, 180, 180])

        // After an update for C, "A" is the second visit.
        let afterC = RealtimePrediction.apply(update([byStopID("C", 30), byStopID("A", 120)]), to: loop, serviceDay: Self.day)
        #expect(afterC.map(\.delay) == [nil, nil, 30, 120, 120])
        #expect(afterC[3].arrival == at(9 * 3600 + 900 + 120))

        // stop_sequence wins over stop_id.
        let bySequence = RealtimeFeed.StopTimeUpdate(stopSequence: 40, stopID: "A", arrival: RealtimeFeed.StopTimeEvent(delay: 15))
        #expect(RealtimePrediction.apply(update([bySequence]), to: loop, serviceDay: Self.day).map(\.delay) == [nil, nil, nil, 15, 15])
    }

    // MARK: Trip-level states

    @Test func aTripDelayAppliesUntilTheFirstStopTimeUpdateWithADelay() {
        let onlyTrip = RealtimePrediction.apply(update([], delay: 240), to: Self.twentyStops, serviceDay: Self.day)
        expect(onlyTrip, 1...20, delay: 240)

        let withStops = RealtimePrediction.apply(update([delayed(5, by: 60)], delay: 240), to: Self.twentyStops, serviceDay: Self.day)
        expect(withStops, 1...4, delay: 240)
        expect(withStops, 5...20, delay: 60)
    }

    @Test func aCanceledTripSkipsEveryStop() {
        var canceled = update([delayed(3, by: 300)], delay: 60)
        canceled.trip.scheduleRelationship = .canceled
        let predictions = RealtimePrediction.apply(canceled, to: Self.twentyStops, serviceDay: Self.day)
        #expect(predictions.count == 20)
        #expect(predictions.allSatisfy { $0.skipped && $0.hasRealtime && $0.arrival == nil && $0.departure == nil && $0.delay == nil })

        canceled.trip.scheduleRelationship = .deleted
        #expect(RealtimePrediction.apply(canceled, to: Self.twentyStops, serviceDay: Self.day).allSatisfy { $0.skipped })
    }

    @Test func aTripMissingFromTheFeedHasNoRealtimeAtAll() {
        let predictions = RealtimePrediction.apply(nil, to: Self.twentyStops, serviceDay: Self.day)
        #expect(predictions.count == 20)
        expect(predictions, 1...20, delay: nil)
        #expect(predictions.allSatisfy { !$0.hasRealtime && !$0.skipped })
    }

    @Test func noStopTimesGiveNoPredictions() {
        #expect(RealtimePrediction.apply(update([delayed(1, by: 5)]), to: [], serviceDay: Self.day).isEmpty)
    }

    // MARK: Service days

    @Test func timesPast24HoursFallOnTheNextCalendarDay() throws {
        let serviceDay = try #require(ServiceDay(gtfsDate: "20250602"))
        #expect(serviceDay.reference(in: Self.berlin) == Self.day)
        let late = [
            GTFSStopTime(tripID: "n", stopSequence: 1, stopID: "paradeplatz", arrival: 24 * 3600 + 50 * 60, departure: 24 * 3600 + 50 * 60),
            GTFSStopTime(tripID: "n", stopSequence: 2, stopID: "wasserturm", arrival: 25 * 3600 + 10 * 60, departure: 25 * 3600 + 10 * 60),
        ]
        // 25:10:00 on 2 June is 01:10 on 3 June, Berlin summer time.
        let oneTen = try #require(ISO8601DateFormatter().date(from: "2025-06-03T01:10:00+02:00"))
        #expect(serviceDay.date(at: 25 * 3600 + 600, in: Self.berlin) == oneTen)

        let predictions = RealtimePrediction.apply(update([delayed(1, by: 120)]), to: late, serviceDay: serviceDay.reference(in: Self.berlin))
        #expect(predictions[1].scheduledArrival == oneTen)
        #expect(predictions[1].arrival == oneTen.addingTimeInterval(120))

        let absolute = RealtimeFeed.StopTimeUpdate(
            stopSequence: 2, arrival: RealtimeFeed.StopTimeEvent(time: Int(oneTen.timeIntervalSince1970) + 45))
        let timed = RealtimePrediction.apply(update([absolute]), to: late, serviceDay: serviceDay.reference(in: Self.berlin))
        #expect(timed[1].delay == 45)
        #expect(timed[0].delay == nil)
    }

    @Test func theReferenceOfADaySpringingForwardIsNoonMinus12Hours() throws {
        let springForward = try #require(ServiceDay(gtfsDate: "20250330"))
        let iso = ISO8601DateFormatter()
        // Noon is 12:00 CEST (10:00 UTC); 12 hours earlier is 23:00 CET the evening before.
        #expect(springForward.reference(in: Self.berlin) == iso.date(from: "2025-03-29T23:00:00+01:00"))
        // 08:00:00 in the feed is 08:00 on the clock; 00:30:00 is still the evening before.
        #expect(springForward.date(at: 8 * 3600, in: Self.berlin) == iso.date(from: "2025-03-30T08:00:00+02:00"))
        #expect(springForward.date(at: 30 * 60, in: Self.berlin) == iso.date(from: "2025-03-29T23:30:00+01:00"))

        let fallBack = try #require(ServiceDay(gtfsDate: "20251026"))
        #expect(fallBack.reference(in: Self.berlin) == iso.date(from: "2025-10-26T01:00:00+02:00"))
        #expect(fallBack.date(at: 8 * 3600, in: Self.berlin) == iso.date(from: "2025-10-26T08:00:00+01:00"))
    }

    @Test func serviceDatesAreEightDigitsOfARealDate() {
        #expect(ServiceDay(gtfsDate: "20250602") == ServiceDay(year: 2025, month: 6, day: 2))
        #expect(ServiceDay(gtfsDate: "20250602")?.gtfsDate == "20250602")
        #expect(ServiceDay(gtfsDate: "20240229") != nil)
        #expect(ServiceDay(gtfsDate: "20250229") == nil)
        #expect(ServiceDay(gtfsDate: "20251301") == nil)
        #expect(ServiceDay(gtfsDate: "2025-06-02") == nil)
        #expect(ServiceDay(gtfsDate: "2025062") == nil)
        #expect(ServiceDay(gtfsDate: "+2025060") == nil)
        #expect(ServiceDay(year: 2025, month: 12, day: 31).adding(days: 1) == ServiceDay(year: 2026, month: 1, day: 1))
        #expect(ServiceDay(year: 2025, month: 3, day: 1).adding(days: -1) == ServiceDay(year: 2025, month: 2, day: 28))
        #expect(ServiceDay(year: 2025, month: 6, day: 2) < ServiceDay(year: 2025, month: 6, day: 3))
        #expect(ServiceDay(year: 2025, month: 6, day: 2).description == "2025-06-02")
    }

    @Test func theServiceDayOfAnInstantIsItsLocalCalendarDay() throws {
        let lateEvening = try #require(ISO8601DateFormatter().date(from: "2025-06-02T23:30:00Z"))  // 01:30 on 3 June in Berlin
        #expect(ServiceDay(containing: lateEvening, in: Self.berlin) == ServiceDay(year: 2025, month: 6, day: 3))
        #expect(ServiceDay(containing: lateEvening, in: TimeZone(identifier: "UTC")!) == ServiceDay(year: 2025, month: 6, day: 2))
    }
}
