import Foundation
import Testing

@testable import LivelineSandbox

/// What a sandbox keeps of the pushes it accepted (``SandboxConfiguration/acceptedKept``).
struct SandboxStateTests {
    static func push(_ token: String, _ index: Int) -> AcceptedPush {
        AcceptedPush(
            apnsID: "id-\(index)", pushType: "liveactivity", topic: "t", priority: 10, expiration: nil, collapseID: nil, payload: [],
            receivedAt: Date(), token: token, channelID: nil, connectionID: 0)
    }

    @Test func aBoundedRecordKeepsTheLatestPerTokenAndInAll() {
        var state = SandboxState(clock: { Date() })
        state.kept = (perTarget: 3, total: 5)
        for index in 0..<4 { state.record(Self.push("a", index)) }
        #expect(state.acceptedByToken["a"]?.map(\.apnsID) == ["id-1", "id-2", "id-3"], "the oldest of a token go first")
        for index in 10..<13 { state.record(Self.push("b", index)) }
        let kept = (state.acceptedByToken["a"] ?? []) + (state.acceptedByToken["b"] ?? [])
        // Seven accepted, at most five kept: the two oldest accepted went (id-0 already by the token's bound).
        #expect(kept.map(\.apnsID) == ["id-3", "id-10", "id-11", "id-12"], "\(kept.map(\.apnsID))")
        #expect(state.acceptedCount == 7)
    }

    @Test func anUnboundedRecordKeepsEverything() {
        var state = SandboxState(clock: { Date() })
        for index in 0..<50 { state.record(Self.push("a", index)) }
        #expect(state.acceptedByToken["a"]?.count == 50)
    }
}
