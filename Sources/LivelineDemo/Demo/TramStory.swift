import Foundation
import LivelineClient
import LivelineDevices
import LivelineModel
import LivelineTransitModel

/// The tram ride (`docs/features/transit.md`): Dennis and Jaqueline take the next tram of the demo
/// feed that boards after the demo clock's now. His app starts his card itself; hers is started on
/// both her phones by push-to-start. The server follows both rides (real time replayed where the
/// trip runs like the recorded one, `DemoRealtime`) until they arrive and the cards end.
struct TramStory: DemoStory {
    let stage: DemoStage
    let timetable: DemoTimetable
    let realtime: DemoRealtime
    var name: String { "tram" }

    func round(_ number: Int) async throws {
        let household = stage.household
        let narrator = stage.narrator
        let say = { (text: String) in narrator.say(name, text) }
        await household.swipeAwayEnded(TripLiveActivityAttributes.typeName)

        guard let ride = timetable.nextRide(after: stage.clock.now) else {
            say("no tram of the demo feed runs in the next days (its calendar ends 2027-12-31)")
            await stage.until(timeout: .infinity) { false }
            return
        }
        let live = realtime.follow(ride)
        say(
            "Dennis and Jaqueline take tram \(ride.line) at \(DemoNarrator.minute(ride.departure)) from \(ride.fromName) to \(ride.toName), "
                + "due \(DemoNarrator.minute(ride.arrival)) (trip \(ride.tripID), \(live ? "real time replayed from the recorded ride" : "by the timetable"))"
        )
        let wait = Int(ride.departure.timeIntervalSince(stage.clock.now) / 60)
        if wait >= 10 { say("the tram leaves in \(wait) minutes of demo time: the cards count down until then") }

        func request(_ start: String) -> StartTripRequest {
            StartTripRequest(
                tripId: ride.tripID, fromStopId: ride.fromStopID, toStopId: ride.toStopID, serviceDate: ride.day.description, start: start)
        }
        let dennis = household.dennisPhone
        let mine = try await dennis.client.startTrip(request("local"))
        if let attributes = mine.attributes, let state = mine.state {
            household.fleet.startLocally(
                device: dennis.id, attributesType: TripLiveActivityAttributes.typeName,
                attributes: try JSONValue(json: JSONEncoder().encode(attributes)), contentState: try JSONValue(json: JSONEncoder().encode(state)),
                channelID: nil)
        }
        household.expect("trip:\(mine.id)", on: [dennis])
        let her = household.herPhones[0]
        let hers = try await her.client.startTrip(request("push"))
        household.expect("trip:\(hers.id)", on: household.herPhones)
        say("his app starts his card; her ride goes to both her phones by push-to-start")

        var arrived = false
        while !arrived, await stage.pause(0.5) {
            let first = try? await dennis.client.trip(mine.id)
            let second = try? await her.client.trip(hers.id)
            arrived = first?.ended == true && second?.ended == true
        }
        guard arrived else { return }
        say("both rides arrived at \(ride.toName): the cards end")
        _ = await stage.pause(2)
    }
}
