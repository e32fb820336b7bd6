import Foundation
import LivelineEngine
import LivelinePush
import LivelinePushWire
import LivelineStore
import Testing

/// When a context's broadcast channel goes: once its end settled, also when the end never got
/// through, and never while the context has started a new card with it.
@Suite struct ChannelRetirementTests {
    static func channelDeletes(_ harness: EngineHarness) -> [String] {
        harness.sender.requests.compactMap { if case .deleteChannel(let id) = $0 { id } else { nil } }
    }

    @Test func aChannelTheEndNeverReachedIsDeletedWhenTheEndIsGivenUp() throws {
        let harness = try EngineHarness()  // five sends at most, 1 s apart and doubling
        defer { harness.stop() }
        try harness.put(delay: 1)
        let channelID = try harness.attachChannel()
        try harness.put(delay: 2)
        harness.dispatcher.drain()
        harness.sender.script { request in
            if case .broadcast = request { ScriptedSender.refused(500, .internalServerError) } else { ScriptedSender.accepted }
        }
        _ = try harness.engine.endContext(key: EngineHarness.contextKey)
        // Drained at each step, the clock moved past each backoff, until the end is a dead letter.
        for _ in 0..<10 {
            harness.dispatcher.drain()
            harness.clock.advance(by: 60)
        }
        harness.dispatcher.drain()
        let broadcasts = harness.sender.requests.filter { if case .broadcast = $0 { true } else { false } }
        #expect(broadcasts.count == 1 + 5, "the update, then the end sent five times")
        #expect(try harness.store.outbox.deadLetters(contextKey: EngineHarness.contextKey).count == 1)
        #expect(Self.channelDeletes(harness) == [channelID], "deleted although the end never got through")
        #expect(try harness.store.channels.channel(id: channelID)?.isActive == false)
        #expect(try harness.contextChannel() == nil)
        #expect(harness.events("channelRetired").contains { $0["channel.id"] as? String == channelID })
    }

    @Test func aContextReopenedWhileItsEndWasAnsweredKeepsItsChannel() throws {
        let harness = try EngineHarness()
        defer { harness.stop() }
        try harness.put(delay: 1)
        let channelID = try harness.attachChannel()
        try harness.put(delay: 2)
        harness.dispatcher.drain()
        _ = try harness.engine.endContext(key: EngineHarness.contextKey)
        // APNs takes the end; before its answer is recorded, the context starts a new card (which
        // keeps the channel it still holds).
        harness.sender.afterSend {
            harness.sender.afterSend {}
            try? harness.engine.write { change in try change.reopen(EngineHarness.contextKey) }
        }
        harness.dispatcher.drain()
        harness.clock.advance(by: 120)
        harness.dispatcher.drain()
        let context = try #require(try harness.store.contexts.context(key: EngineHarness.contextKey))
        #expect(context.state == .active)
        #expect(try harness.contextChannel() == channelID, "the new card's channel stays linked")
        #expect(Self.channelDeletes(harness).isEmpty, "and is not deleted")
        #expect(try harness.store.channels.channel(id: channelID)?.isActive == true)
    }
}
