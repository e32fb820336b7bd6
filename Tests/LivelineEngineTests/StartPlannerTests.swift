import Foundation
import LivelineStore
import Testing

@testable import LivelineEngine

/// A start request's rules per device as a pure function: what was read in, each device's step
/// out — no database.
@Suite struct StartPlannerTests {
    static let household = HouseholdID(1)
    static let anna = UserID(1)
    static let ben = UserID(2)

    static func planner(
        showing: Set<String> = [], optedOut: Set<UserID> = [], dismissed: Set<UserID> = [], includeDismissed: Bool = false
    ) -> StartPlanner {
        StartPlanner(
            contextKey: "trip:1", activityType: "TripLiveActivityAttributes", showing: showing, optedOut: optedOut, dismissed: dismissed,
            includeDismissed: includeDismissed)
    }

    @Test func aDeviceThatShowsTheActivityGetsNoStartEvenWhenItsUserOptedOut() {
        let step = Self.planner(showing: ["1:phone"], optedOut: [Self.anna]).step(householdID: Self.household, deviceID: "phone", userID: Self.anna)
        guard case .showing(let outcome) = step else { Issue.record("\(step)"); return }
        #expect(outcome.kind == .alreadyStarted && outcome.deviceID == "phone")
        // The same device id in another household is another device.
        #expect(Self.planner(showing: ["2:phone"]).step(householdID: Self.household, deviceID: "phone", userID: Self.anna) == .reserve)
    }

    @Test func anOptOutIsRecordedAsSkippedAndWinsOverADismissal() {
        let step = Self.planner(optedOut: [Self.anna], dismissed: [Self.anna]).step(householdID: Self.household, deviceID: "a", userID: Self.anna)
        guard case .skip(let outcome) = step else { Issue.record("\(step)"); return }
        #expect(outcome.kind == .optedOut && outcome.reason?.contains("TripLiveActivityAttributes") == true)
    }

    @Test func aDismissalIsHonouredUnlessTheRequestIncludesDismissedUsers() {
        let skipped = Self.planner(dismissed: [Self.ben]).step(householdID: Self.household, deviceID: "b", userID: Self.ben)
        guard case .skip(let outcome) = skipped else { Issue.record("\(skipped)"); return }
        #expect(outcome.kind == .dismissed)
        #expect(
            Self.planner(dismissed: [Self.ben], includeDismissed: true).step(householdID: Self.household, deviceID: "b", userID: Self.ben) == .reserve
        )
        #expect(Self.planner(dismissed: [Self.ben]).step(householdID: Self.household, deviceID: "a", userID: Self.anna) == .reserve)
    }

    @Test func theStoresAnswerToAReservationBecomesTheOutcome() {
        #expect(StartPlanner.outcome(of: .reserved(id: 4), deviceID: "a", userID: Self.anna).kind == .queued)
        let taken = StartPlanner.outcome(of: .alreadyStarted(.sent), deviceID: "a", userID: Self.anna)
        #expect(taken.kind == .alreadyStarted && taken.reason == "start sent already")
        #expect(
            StartPlanner.outcome(of: .overBudget(reason: "8 starts in the last hour"), deviceID: "a", userID: Self.anna).reason
                == "8 starts in the last hour")
    }

    @Test func usersAndDevicesNoStartTokenReachedAreNamedOnceEach() {
        let outcomes = Self.planner().unreached(
            userIDs: [Self.anna, Self.ben], deviceIDs: ["a", "tablet"], reachedUsers: [Self.anna], reachedDevices: ["a"],
            environments: [.sandbox, .production])
        #expect(outcomes.map(\.kind) == [.noStartToken, .noStartToken])
        #expect(outcomes.map(\.userID) == [Self.ben, nil] && outcomes.map(\.deviceID) == [nil, "tablet"])
        #expect(outcomes.first?.reason == "no la-pushToStart token for TripLiveActivityAttributes (sandbox, production)")
    }
}
