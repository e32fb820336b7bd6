import Foundation
@testable import LivelineEngine
import LivelinePush
import LivelinePushWire
import Testing

/// Message rows are read back whichever build wrote them: the headers column keeps the format of
/// the first builds, byte for byte.
@Suite struct OutboxMessageTests {
    /// Headers exactly as the builds before the enum wrote them (copied from rows they enqueued).
    static let olderStart =
        #"{"collapseID":"start:trip:1","expiration":1800000600,"kind":"start","note":"start rev 3 on device phone-1","priority":10,"pushType":"liveactivity","rev":3,"startID":5,"tokenID":2}"#
    static let olderAlert = #"{"kind":"alert","note":"notification 4 (d-1) to device phone-1","priority":10,"pushType":"alert","tokenID":9}"#
    static let olderChannelDelete = #"{"channelID":"dHN0LTE=","kind":"channel-delete","note":"delete the channel of ended trip:1"}"#

    static let start = OutboxMessage.start(
        tokenID: 2, startID: 5, rev: 3,
        push: OutboxMessage.Push(pushType: .liveActivity, priority: .immediate, expiration: 1_800_000_600, collapseID: "start:trip:1"),
        note: "start rev 3 on device phone-1"
    )
    static let alert = OutboxMessage.alert(
        tokenID: 9, push: OutboxMessage.Push(pushType: .alert, priority: .immediate), note: "notification 4 (d-1) to device phone-1")
    static let channelDelete = OutboxMessage.channelDelete(channelID: "dHN0LTE=", note: "delete the channel of ended trip:1")

    @Test func rowsWrittenByAnOlderBuildReadAsTheirKind() {
        #expect(OutboxMessage.decode(Self.olderStart) == Self.start)
        #expect(OutboxMessage.decode(Self.olderAlert) == Self.alert)
        #expect(OutboxMessage.decode(Self.olderChannelDelete) == Self.channelDelete)
    }

    @Test func eachKindIsWrittenAsTheOlderBuildsWroteIt() {
        // So an older build still sends a row this one enqueued (a rollback loses nothing).
        #expect(Self.start.json == Self.olderStart)
        #expect(Self.alert.json == Self.olderAlert)
        #expect(Self.channelDelete.json == Self.olderChannelDelete)
    }

    @Test func theFirstBuildsDefaultsHold() {
        // No push type: an alert; no priority: 10.
        let message = OutboxMessage.decode(#"{"kind":"alert","note":"n","tokenID":1}"#)
        #expect(message == .alert(tokenID: 1, push: OutboxMessage.Push(pushType: .alert, priority: .immediate), note: "n"))
    }

    @Test func incompleteOrUnknownHeadersReadAsNothing() {
        #expect(OutboxMessage.decode(nil) == nil)
        #expect(OutboxMessage.decode("not json") == nil)
        #expect(OutboxMessage.decode(#"{"kind":"start","note":"n","tokenID":2,"rev":3}"#) == nil, "a start without its la_starts row")
        #expect(OutboxMessage.decode(#"{"kind":"alert","note":"n"}"#) == nil, "an alert without its token")
        #expect(OutboxMessage.decode(#"{"kind":"channel-delete","note":"n"}"#) == nil, "a deletion without its channel")
        #expect(OutboxMessage.decode(#"{"kind":"web-push","note":"n","tokenID":1}"#) == nil, "a kind this build does not know")
    }

    @Test func theKindsAccessorsNameWhatEachCarries() {
        #expect(Self.start.tokenID == 2 && Self.start.startID == 5)
        #expect(Self.alert.tokenID == 9 && Self.alert.startID == nil)
        #expect(Self.channelDelete.tokenID == nil && Self.channelDelete.note == "delete the channel of ended trip:1")
    }
}
