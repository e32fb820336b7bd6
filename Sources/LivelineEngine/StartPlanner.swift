import Foundation
import LivelineModel
import LivelineStore

/// What a start request does on each device, decided from what the engine read in its
/// transaction (`docs/engine.md`, "Lifecycle"): never a start in place of an update, opt-outs
/// and dismissals honoured, a start reserved (once per device and within its budget, counted by
/// the store) for every other device. Pure, so its rules are tested without a database.
struct StartPlanner: Sendable {
    let contextKey: String
    let activityType: String
    /// Devices (`household:device`) whose app registered an update token for the context or
    /// reported rendering it.
    let showing: Set<String>
    let optedOut: Set<UserID>
    let dismissed: Set<UserID>
    let includeDismissed: Bool

    /// What to do on one device.
    enum Step: Sendable, Hashable {
        /// Nothing sent, nothing recorded: the device shows the activity.
        case showing(StartOutcome)
        /// Recorded as skipped with the outcome's reason; nothing sent.
        case skip(StartOutcome)
        /// A start is reserved, then sent when the store grants it (``outcome(of:deviceID:userID:)``).
        case reserve
    }

    func step(householdID: HouseholdID, deviceID: String, userID: UserID) -> Step {
        if showing.contains("\(householdID):\(deviceID)") {
            return .showing(
                StartOutcome(
                    deviceID: deviceID, userID: userID, kind: .alreadyStarted,
                    reason: "the device shows it: its app registered an update token for \(contextKey) or reported rendering it"))
        }
        if optedOut.contains(userID) {
            return .skip(
                StartOutcome(
                    deviceID: deviceID, userID: userID, kind: .optedOut,
                    reason: "the user turned Live Activities of \(activityType) off in the app"))
        }
        if dismissed.contains(userID) && !includeDismissed {
            return .skip(
                StartOutcome(
                    deviceID: deviceID, userID: userID, kind: .dismissed,
                    reason: "the user dismissed this activity; start again with includeDismissed when they ask for it"))
        }
        return .reserve
    }

    /// The outcome of the store's answer to a reservation.
    static func outcome(of reservation: StartReservation, deviceID: String, userID: UserID) -> StartOutcome {
        switch reservation {
        case .alreadyStarted(let status):
            StartOutcome(deviceID: deviceID, userID: userID, kind: .alreadyStarted, reason: "start \(status.rawValue) already")
        case .overBudget(let reason):
            StartOutcome(deviceID: deviceID, userID: userID, kind: .overBudget, reason: reason)
        case .reserved:
            StartOutcome(deviceID: deviceID, userID: userID, kind: .queued, reason: nil)
        }
    }

    /// The users and devices asked for that no start token reached.
    func unreached(
        userIDs: [UserID], deviceIDs: [String], reachedUsers: Set<UserID>, reachedDevices: Set<String>, environments: [PushEnvironment]
    ) -> [StartOutcome] {
        let reason = "no la-pushToStart token for \(activityType) (\(environments.map(\.rawValue).joined(separator: ", ")))"
        return userIDs.filter { !reachedUsers.contains($0) }.map { StartOutcome(deviceID: nil, userID: $0, kind: .noStartToken, reason: reason) }
            + deviceIDs.filter { !reachedDevices.contains($0) }.map {
                StartOutcome(deviceID: $0, userID: nil, kind: .noStartToken, reason: reason)
            }
    }
}
