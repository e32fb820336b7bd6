import Foundation
import LivelineModel
import LivelineContractChecks
import LivelineTransitModel
import Testing

/// The trip contract keeps the rules of every contract against its golden fixtures
/// (`docs/contracts.md`, "Versioning and compatibility") and its own: the keys of §3 with Swift's
/// default date, its materiality, its card and its context key.
struct TripLiveActivityAttributesTests {
    typealias Contract = TripLiveActivityAttributes

    /// 2026-06-18 12:00 UTC: within 8 h of the fixture's timestamp.
    static let now = Date(timeIntervalSince1970: 1_781_784_000)

    static func fixtures() throws -> URL { try #require(Bundle.module.url(forResource: "Fixtures", withExtension: nil)) }

    static func json(_ value: some Encodable) throws -> Data { try JSONEncoder().encode(value) }

    @Test func keepsTheRulesOfEveryContract() throws {
        let examples = ContractChecks.examples(besideTestFile: #filePath)
        let problems = try ContractChecks.everyRule(Contract.self, fixtures: Self.fixtures(), examples: examples, now: Self.now)
        #expect(problems.isEmpty, "\(problems)")
    }

    @Test func theDateUsesSwiftsDefaultSecondsSince2001() throws {
        let state = Contract.exampleContentState
        let object = try #require(try JSONValue(json: Self.json(state)).objectValue)
        #expect(object["nextStopTime"] == .int(803_461_320))
        #expect(object["occupancy"] == .string("medium"))
        #expect(object["phase"] == .string("inProgress"))
        #expect(state.nextStopTime == Date(timeIntervalSince1970: 1_781_768_520))
    }

    /// The spec's rule for trips (`docs/features/transit.md`, "What is pushed"): phase and delay
    /// changes of a minute or more are material; a new stop goes at priority 5.
    @Test func phaseAndDelayAreMaterialTheRestIsQuiet() throws {
        let base = Contract.exampleContentState
        var quiet = base
        quiet.remainingTime += 60
        quiet.progress = 0.9
        quiet.occupancy = base.occupancy == .low ? .high : .low
        #expect(Contract.materialChange(from: base, to: quiet) == nil)
        var late = base
        late.delay += 1
        #expect(Contract.materialChange(from: base, to: late)?.contains("delay") == true)
        var moved = base
        moved.currentStop = "Somewhere else"
        moved.nextStop = "Further on"
        #expect(Contract.materialChange(from: base, to: moved) == nil)
        var arrived = base
        arrived.phase = .arrived
        #expect(Contract.materialChange(from: base, to: arrived)?.contains("phase") == true)
    }

    @Test func drawsItsOwnCard() throws {
        let card = try #require(
            Contract.card(attributes: Self.json(Contract.example), contentState: Self.json(Contract.exampleContentState), badge: ""))
        #expect(card.lockScreen.hasPrefix("🚆 RNV 5 → Bismarckplatz"))
    }

    @Test func theContextKeyIsTheRidesAndNeedsTheTripID() throws {
        #expect(Contract.contextKey(attributes: try Self.json(Contract.example), userID: 2, householdID: 7) == "trip:\(Contract.example.tripId)")
        #expect(Contract.contextKey(attributes: Data("{}".utf8), userID: 2, householdID: 7) == nil)
    }
}
