import Foundation
import LivelineClient
import LivelineDevices
import LivelineModel
import Testing

@testable import LivelineDemo
import LivelineCookSuggestModel

/// The demo's last word: which cards show the server's truth.
@Suite struct DemoTruthCheckTests {
    static func card(rev: Int?, state: SimulatedActivity.State, content: JSONValue? = nil) -> SimulatedActivity {
        var fields: [String: JSONValue] = ["statusLabel": "Today: Lasagne"]
        if let rev { fields["rev"] = .int(rev) }
        return SimulatedActivity(
            id: "a", attributesType: CookSuggestActivityAttributes.typeName, attributes: .object([:]), contextKey: "cooksuggest:1",
            contentState: content ?? .object(fields), timestamp: 1, state: state, startedAt: Date(), staleAt: nil, endedAt: nil, dismissAt: nil,
            updateToken: nil, channelID: nil, awaitingAllow: false, priorityLedger: [], presented: true)
    }

    static func truth(rev: Int, ended: Bool, content: JSONValue? = nil) -> Snapshot<JSONValue> {
        Snapshot(
            contextKey: "cooksuggest:1", rev: rev, state: content ?? .object(["statusLabel": "Today: Lasagne", "rev": .int(rev)]), ended: ended,
            receivedAt: Date())
    }

    static func verdict(_ card: SimulatedActivity?, _ truth: Snapshot<JSONValue>, lastPushed: Int?) -> DemoTruthCheck.Verdict {
        DemoTruthCheck.verdict(card, truth, lastPushed: lastPushed, phone: "p", key: "cooksuggest:1")
    }

    @Test func aRunningCardMatchesOnlyTheServersRevisionAndState() {
        #expect(Self.verdict(Self.card(rev: 4, state: .active), Self.truth(rev: 4, ended: false), lastPushed: 4).matches)
        #expect(!Self.verdict(Self.card(rev: 3, state: .active), Self.truth(rev: 4, ended: false), lastPushed: 4).matches)
        let other = JSONValue.object(["statusLabel": "something else", "rev": .int(4)])
        #expect(!Self.verdict(Self.card(rev: 4, state: .active, content: other), Self.truth(rev: 4, ended: false), lastPushed: 4).matches)
        #expect(!Self.verdict(nil, Self.truth(rev: 4, ended: false), lastPushed: 4).matches, "no card is no match")
    }

    @Test func anEndedCardMustShowTheServersLastPush() {
        // The end was pushed at rev 11; the context went on to rev 13 after it (a list that grows): rev 11 is the truth.
        #expect(Self.verdict(Self.card(rev: 11, state: .ended), Self.truth(rev: 13, ended: true), lastPushed: 11).matches)
        #expect(Self.verdict(Self.card(rev: 11, state: .dismissed), Self.truth(rev: 11, ended: true), lastPushed: 11).matches)
        // An ended card that missed the end's final state is no match.
        let missed = Self.verdict(Self.card(rev: 9, state: .ended), Self.truth(rev: 11, ended: true), lastPushed: 11)
        #expect(!missed.matches)
        #expect(missed.detail.contains("last push of it was rev 11"))
        // Ended on one side only is no match either way.
        #expect(!Self.verdict(Self.card(rev: 11, state: .ended), Self.truth(rev: 11, ended: false), lastPushed: 11).matches)
        #expect(!Self.verdict(Self.card(rev: 11, state: .active), Self.truth(rev: 11, ended: true), lastPushed: 11).matches)
    }
}
