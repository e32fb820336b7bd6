import Foundation
import LivelineEngine
import LivelineStore
import LivelineTestSupport
import Testing

/// An `la-update` token registered on PostgreSQL while the first change of its context is being
/// committed: the registration holds the context first, so it waits for that commit and then
/// catches the token up on the change (before, it read revision 0, added no catch-up row, and the
/// token depended on committing before the change's fan-out was claimed).
@Suite(.serialized) struct RegistrationRaceTests {
    @Test func aTokenRegisteredWhileTheFirstChangeCommitsIsCaughtUp() throws {
        let (database, drop) = try TestPostgres.freshDatabase()
        defer { drop() }
        let store = try Store.open(database)
        let engine = Engine(
            store: store, sender: ScriptedSender(),
            configuration: EngineConfiguration(bundleID: "dev.liveline.test", dispatcherID: "d", lease: 30, minimumPushInterval: 0),
            registry: .builtIn)
        let user = try store.accounts.createUser(
            household: "H", name: "U", avatarTint: "azure", emoji: "x", locale: "de", tokenHash: UUID().uuidString, now: Date())
        let key = "trip:race"
        try store.write { transaction in
            try store.contexts.create(
                key: key, activityType: "TripLiveActivityAttributes", householdID: nil, attributes: "{}", contentState: "{}", now: Date(),
                in: transaction)
        }
        let holding = DispatchSemaphore(value: 0)
        let finished = DispatchSemaphore(value: 0)
        let change = Thread {
            defer { finished.signal() }
            _ = try? store.write { transaction in
                try store.contexts.recordChange(key: key, now: Date(), note: "first change", in: transaction)
                holding.signal()
                Thread.sleep(forTimeInterval: 1)  // the change's locks held, uncommitted
            }
            holding.signal()  // (again, when the change failed before its first signal: nothing waits forever)
        }
        change.start()
        #expect(holding.wait(timeout: .now() + 30) == .success)
        let started = ContinuousClock.now
        try engine.registerToken(
            TokenRegistration(
                householdID: user.householdID, userID: user.id, deviceID: "phone", kind: .update, environment: .sandbox,
                token: String(repeating: "ab", count: 32), contextKey: key))
        let waited = ContinuousClock.now - started
        #expect(finished.wait(timeout: .now() + 30) == .success)
        #expect(try store.contexts.revision(key: key) == 1)
        // It waited for the change's commit (held 1 s after it began).
        #expect(waited >= .milliseconds(200), "registered after \(waited)")
        let token = try #require(try store.tokens.activeTokens(userID: user.id).first)
        let catchUp = try store.outbox.rows(contextKey: key).filter { $0.kind == .sync && $0.target == .token(token.id) }
        #expect(catchUp.map(\.status) == [.due], "the token is caught up on revision 1")
    }
}
