import Foundation
import LivelineCookSuggestModel
import LivelineEngine
import LivelineModel
import LivelinePush
import LivelinePushWire
import LivelineStore
import LivelineTestSupport
import LivelineTransitModel
import Testing

/// The engine as the only door for writes: its operations keep the rules the repositories no
/// longer know (a `/v1` put checked and refused as a whole, an end that cancels starts, a new
/// card that retires the previous one's, a start answered by a token or a receipt).
@Suite struct EngineWriteTests {
    final class Fixture {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-engine-write-\(UUID().uuidString)")
        let store: Store
        let engine: Engine
        let sender = RecordingPushSender()

        init(configuration: EngineConfiguration = EngineConfiguration(bundleID: "dev.liveline.demo", minimumPushInterval: 0)) throws {
            store = try TestBackend.openStore(folder: folder)
            engine = Engine(store: store, sender: sender, configuration: configuration, registry: .builtIn)
        }

        func user(_ name: String, household: String = "H") throws -> UserRecord {
            try store.accounts.createUser(
                household: household, name: name, avatarTint: "azure", emoji: "x", locale: "de", tokenHash: UUID().uuidString, now: Date())
        }

        static func trip(delay: Int) throws -> PutContextRequest {
            PutContextRequest(
                type: TripLiveActivityAttributes.typeName,
                attributes: try JSONValue(json: Data(#"{"tripId":"t","line":"5","destination":"B"}"#.utf8)),
                contentState: try JSONValue(
                    json: Data(
                        #"{"currentStop":"A","nextStop":"B","nextStopTime":803461320,"remainingTime":240,"delay":\#(delay),"occupancy":"low","phase":"inProgress","progress":0.5}"#
                            .utf8))
            )
        }

        deinit { try? FileManager.default.removeItem(at: folder) }
    }

    @Test func aPutIsCheckedAsTheWholePushThenCreatesOrUpdatesInOneTransaction() throws {
        let fixture = try Fixture()
        let engine = fixture.engine
        #expect(try engine.putContext(key: "trip:1", Fixture.trip(delay: 1)) == ContextUpsertResult(rev: 1, created: true))
        #expect(try engine.putContext(key: "trip:1", Fixture.trip(delay: 2)) == ContextUpsertResult(rev: 2, created: false))
        #expect(try fixture.store.contexts.revisions(key: "trip:1").map(\.note) == ["updated", "created"])
        #expect(try fixture.store.outbox.rows(contextKey: "trip:1").filter { $0.status == .due }.count == 1, "one coalesced sync row")

        // Refused, naming the field, with nothing changed.
        var bad = try Fixture.trip(delay: 3)
        bad.contentState = try JSONValue(json: Data(#"{"currentStop":"A"}"#.utf8))
        #expect { try engine.putContext(key: "trip:1", bad) } throws: { error in
            (error as? EngineError)?.code == .payloadRefused && (error as? EngineError)?.field?.hasPrefix("contentState") == true
        }
        var unknown = try Fixture.trip(delay: 3)
        unknown.type = "TripLiveActivity"
        #expect { try engine.putContext(key: "trip:1", unknown) } throws: { ($0 as? EngineError)?.field == "type" }
        #expect(try engine.revision(key: "trip:1") == 2)
    }

    /// Once a claim found nobody following a context, its puts write no sync row and wake no
    /// dispatcher; a token registered since brings both back; its end is sent all the same.
    @Test func aPutOfAContextNobodyFollowsWritesNoRowAndWakesNoDispatcher() throws {
        let fixture = try Fixture()
        let (engine, store) = (fixture.engine, fixture.store)
        try engine.putContext(key: "trip:1", Fixture.trip(delay: 1))
        func due() throws -> Int { try store.outbox.rows(contextKey: "trip:1").filter { $0.status == .due }.count }
        #expect(try due() == 1)
        #expect(try store.outbox.claimForSending(owner: "d1", now: Date().addingTimeInterval(1), lease: 30, limit: 10).completed == 1)

        var woken = store.outbox.enqueued.value
        #expect(try engine.putContext(key: "trip:1", Fixture.trip(delay: 2)).rev == 2)
        #expect(try due() == 0)
        #expect(store.outbox.enqueued.value == woken, "no dispatcher woken")

        let ada = try fixture.user("Ada")
        try store.tokens.register(
            TokenRegistration(
                householdID: ada.householdID, userID: ada.id, deviceID: "phone", kind: .update, environment: .production,
                token: String(repeating: "ab", count: 32), contextKey: "trip:1"), now: Date())
        woken = store.outbox.enqueued.value
        #expect(try engine.putContext(key: "trip:1", Fixture.trip(delay: 3)).rev == 3)
        #expect(try due() == 1)
        #expect(store.outbox.enqueued.value > woken)

        // Quiet again (the token gone), its end still goes out.
        try store.write { try $0.execute("UPDATE push_tokens SET status = 'deleted'", []) }
        #expect(try store.outbox.claimForSending(owner: "d1", now: Date().addingTimeInterval(1), lease: 30, limit: 10).completed == 1)
        try engine.putContext(key: "trip:1", Fixture.trip(delay: 4))
        #expect(try due() == 0)
        try engine.endContext(key: "trip:1")
        #expect(try due() == 1, "the end's row")
    }

    @Test func aPutRefusesATypeChangeAnEndedContextAndAFeaturesContext() throws {
        let fixture = try Fixture()
        let engine = fixture.engine
        try engine.putContext(key: "trip:1", Fixture.trip(delay: 1))
        var shopping = try Fixture.trip(delay: 1)
        shopping.type = CookSuggestActivityAttributes.typeName
        shopping.contentState = try JSONValue(json: JSONEncoder().encode(CookSuggestActivityAttributes.exampleContentState))
        shopping.attributes = try JSONValue(json: JSONEncoder().encode(CookSuggestActivityAttributes.example))
        #expect { try engine.putContext(key: "trip:1", shopping) } throws: { ($0 as? EngineError)?.code == .activityTypeChanged }
        #expect(try engine.revision(key: "trip:1") == 1)

        #expect(try engine.endContext(key: "trip:1") == ContextEndResult(rev: 2, alreadyEnded: false))
        #expect(try engine.endContext(key: "trip:1") == ContextEndResult(rev: 2, alreadyEnded: true))
        #expect { try engine.putContext(key: "trip:1", Fixture.trip(delay: 2)) } throws: { ($0 as? EngineError)?.code == .contextEnded }
        #expect(try engine.revision(key: "trip:1") == 2)

        let ada = try fixture.user("Ada")
        try engine.write { change in
            try change.createContext(
                key: "trip:owned", activityType: TripLiveActivityAttributes.typeName, householdID: ada.householdID, attributes: "{}")
        }
        #expect { try engine.putContext(key: "trip:owned", Fixture.trip(delay: 1)) } throws: { ($0 as? EngineError)?.code == .conflict }
        #expect { try engine.endContext(key: "trip:none") } throws: { ($0 as? EngineError)?.code == .notFound }
    }

    @Test func anEndCancelsStartsNotSentAndANewCardRetiresThePreviousOnes() throws {
        let fixture = try Fixture()
        let engine = fixture.engine
        let ada = try fixture.user("Ada")
        try engine.putContext(key: "trip:1", Fixture.trip(delay: 1))
        try engine.registerToken(
            TokenRegistration(
                householdID: ada.householdID, userID: ada.id, deviceID: "phone", kind: .pushToStart, environment: .sandbox,
                token: String(repeating: "ab", count: 32), attributesType: TripLiveActivityAttributes.typeName
            ))
        let started = try engine.startActivities(
            contextKey: "trip:1", userIDs: [ada.id], deviceIDs: [], alert: LiveActivityAlert(title: .plain("Go")))
        #expect(started.outcomes.map(\.kind) == [.queued])
        try engine.endContext(key: "trip:1")
        #expect(try fixture.store.starts.starts(contextKey: "trip:1").map(\.status) == [.skipped], "the queued start never goes out")

        // A new card of the ended context: its starts, dismissals and update tokens go.
        try engine.registerToken(
            TokenRegistration(
                householdID: ada.householdID, userID: ada.id, deviceID: "phone", kind: .update, environment: .sandbox,
                token: String(repeating: "cd", count: 32), contextKey: "trip:1"
            ))
        try engine.dismissed(contextKey: "trip:1", userID: ada.id)
        try engine.registerToken(
            TokenRegistration(
                householdID: ada.householdID, userID: ada.id, deviceID: "phone", kind: .update, environment: .sandbox,
                token: String(repeating: "ef", count: 32), contextKey: "trip:1"
            ))
        let changes = engine.tokenChanges.value
        try engine.write { change in try change.reopen("trip:1") }
        #expect(engine.tokenChanges.value > changes, "the token list's cache learns that tokens ended, once committed")
        #expect(try engine.context(key: "trip:1")?.state == .active)
        #expect(try engine.activeTokens(userID: ada.id).filter { $0.kind == .update }.isEmpty)
        #expect(try fixture.store.database.read { try fixture.store.reports.dismissedUsers(contextKey: "trip:1", in: $0) }.isEmpty)
    }

    @Test func anUpdateTokenOrAReceiptAnswersTheDevicesStartOfItsOwnHouseholdOnly() throws {
        let fixture = try Fixture()
        let engine = fixture.engine
        let ada = try fixture.user("Ada", household: "A")
        let eve = try fixture.user("Eve", household: "B")
        try engine.putContext(key: "trip:1", Fixture.trip(delay: 1))
        for (user, token) in [(ada, "ab"), (eve, "ba")] {
            try engine.registerToken(
                TokenRegistration(
                    householdID: user.householdID, userID: user.id, deviceID: "phone", kind: .pushToStart, environment: .sandbox,
                    token: String(repeating: token, count: 32), attributesType: TripLiveActivityAttributes.typeName
                ))
            _ = try engine.startActivities(contextKey: "trip:1", userIDs: [user.id], deviceIDs: [], alert: LiveActivityAlert(title: .plain("Go")))
        }
        let adaStart = try #require(try fixture.store.starts.starts(contextKey: "trip:1").first { $0.householdID == ada.householdID })
        try fixture.store.starts.finish(id: adaStart.id, accepted: true, reason: nil, now: Date())
        #expect(try fixture.store.starts.markSuspect(id: adaStart.id, now: Date()))
        let adaStartToken = try #require(try engine.activeTokens(userID: ada.id).first { $0.kind == .pushToStart })
        #expect(try fixture.store.tokens.markSuspect(id: adaStartToken.id, reason: "no answer", now: Date()))

        // Eve's update token (the same device id, another household) answers Eve's start only.
        try engine.registerToken(
            TokenRegistration(
                householdID: eve.householdID, userID: eve.id, deviceID: "phone", kind: .update, environment: .sandbox,
                token: String(repeating: "ef", count: 32), contextKey: "trip:1"
            ))
        var starts = try fixture.store.starts.starts(contextKey: "trip:1")
        #expect(starts.first { $0.householdID == eve.householdID }?.updateTokenAt != nil)
        #expect(starts.first { $0.householdID == ada.householdID }?.updateTokenAt == nil)
        #expect(try engine.suspectStartTokens() == 1)

        // Ada's receipt answers hers, and her push-to-start token is no longer suspect.
        #expect(try engine.recordReceipt(contextKey: "trip:1", householdID: ada.householdID, deviceID: "phone", userID: ada.id, rev: 1) == 1)
        starts = try fixture.store.starts.starts(contextKey: "trip:1")
        #expect(starts.first { $0.householdID == ada.householdID }?.updateTokenAt != nil)
        #expect(starts.first { $0.householdID == ada.householdID }?.suspectAt == nil)
        #expect(try engine.suspectStartTokens() == 0)
    }

    @Test func aFeatureWriteThatThrowsLeavesNothingBehind() throws {
        let fixture = try Fixture()
        struct Refused: Error {}
        #expect(throws: Refused.self) {
            try fixture.engine.write { change in
                try change.createContext(key: "trip:half", activityType: TripLiveActivityAttributes.typeName, householdID: nil, attributes: "{}")
                try change.recordChange("trip:half", note: "half")
                throw Refused()
            }
        }
        #expect(try fixture.engine.context(key: "trip:half") == nil)
        #expect(try fixture.store.outbox.rows(contextKey: "trip:half").isEmpty)
    }

    /// The pre-check of a put renders the push exactly as the dispatcher will: with the type's
    /// stale date (trip: 10 minutes), and without one for a type that has none.
    @Test func aPutIsCheckedWithItsTypesStaleDateExactlyAsItWillBeSent() throws {
        // A trip state whose push is about 4,085 bytes without a stale date: over APNs' 4,096
        // with one (`,"stale-date":<10 digits>` adds 24).
        func put(padding: Int) throws -> PutContextRequest {
            var put = try Fixture.trip(delay: 1)
            if case .object(var fields) = put.contentState {
                fields["currentStop"] = .string(String(repeating: "x", count: padding))
                put.contentState = .object(fields)
            }
            return put
        }
        func sizeWithoutStaleDate(_ put: PutContextRequest) throws -> Int {
            let state = try JSONSerialization.jsonObject(with: Data(put.contentState.compactJSON))
            let aps: [String: Any] = ["timestamp": Int(Date().timeIntervalSince1970), "event": "update", "content-state": state]
            return try JSONSerialization.data(withJSONObject: ["aps": aps]).count
        }
        var padding = 3_800
        while try sizeWithoutStaleDate(put(padding: padding)) < 4_085 { padding += 1 }
        let big = try put(padding: padding)

        let withStale = try Fixture()
        #expect { try withStale.engine.putContext(key: "trip:big", big) } throws: { ($0 as? EngineError)?.code == .payloadRefused }
        #expect(try withStale.engine.context(key: "trip:big") == nil, "refused: nothing stored")

        let noStale = try Fixture(
            configuration: EngineConfiguration(
                bundleID: "dev.liveline.demo", minimumPushInterval: 0, staleAfter: nil, staleAfterByType: [:]
            ))
        let token = String(repeating: "ab", count: 32)
        let ada = try noStale.user("Ada")
        try noStale.engine.registerToken(
            TokenRegistration(
                householdID: ada.householdID, userID: ada.id, deviceID: "phone", kind: .update, environment: .sandbox, token: token,
                contextKey: "trip:big"
            ))
        #expect(try noStale.engine.putContext(key: "trip:big", big).created)
        noStale.engine.dispatcher.drain()
        let sent = try #require(noStale.sender.pushes(token: token).last)
        #expect(sent.payload.count <= 4_096, "the push it checked is the push it sent: \(sent.payload.count) bytes")
        let aps = try #require((try JSONSerialization.jsonObject(with: Data(sent.payload)) as? [String: Any])?["aps"] as? [String: Any])
        #expect(aps["stale-date"] == nil)
    }
}
