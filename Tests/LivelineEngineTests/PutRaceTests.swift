import Foundation
import LivelineEngine
import LivelineLog
import LivelineModel
import LivelinePush
import LivelinePushWire
import LivelineStore
import LivelineTestSupport
import Synchronization
import Testing

/// Two first puts of one `/v1` key on PostgreSQL, made to overlap (each write holds its locks
/// 0.4 s before committing): both succeed, one creates and one updates.
@Suite(.serialized) struct PutRaceTests {
    @Test func twoPutsOfANewKeyAtOnceBothSucceed() throws {
        let slow = SlowCommitDatabase(inner: try TestPostgres.freshDatabase().database)
        let store = try Store.open(slow)
        let engine = Engine(
            store: store, sender: ScriptedSender(),
            configuration: EngineConfiguration(bundleID: "dev.liveline.test", dispatcherID: "d", lease: 30, minimumPushInterval: 0),
            registry: .builtIn)
        slow.delay = 0.4
        let state =
            #"{"currentStop":"A","nextStop":"B","nextStopTime":803461320,"remainingTime":240,"delay":1,"occupancy":"low","phase":"inProgress","progress":0.5}"#
        let results = Mutex<[String]>([])
        DispatchQueue.concurrentPerform(iterations: 2) { _ in
            do {
                let r = try engine.putContext(
                    key: "trip:9",
                    PutContextRequest(
                        type: "TripLiveActivityAttributes",
                        attributes: try JSONValue(json: Data(#"{"tripId":"t","line":"5","destination":"B"}"#.utf8)),
                        contentState: try JSONValue(json: Data(state.utf8))))
                results.withLock { $0.append("\(r)") }
            } catch { results.withLock { $0.append("error \(error)") } }
        }
        #expect(results.withLock { $0 }.allSatisfy { !$0.hasPrefix("error") })
    }
}
