import Foundation
import Testing
import LivelineStore

/// Waking dispatchers when rows were enqueued.
struct ChangeSignalTests {
    @Test func aWaiterWakesUpOnABump() async {
        let signal = ChangeSignal()
        let seen = signal.value
        async let woken = signal.wait(past: seen, timeout: .seconds(30))
        try? await Task.sleep(for: .milliseconds(20))
        signal.bump()
        #expect(await woken == seen + 1)
    }

    @Test func aBumpBeforeWaitingIsNotMissed() async {
        let signal = ChangeSignal()
        let seen = signal.value
        signal.bump()
        let clock = ContinuousClock()
        let started = clock.now
        // A missed bump would wait the whole timeout; the bound is loose because the suite runs
        // hundreds of tests at once on two cores.
        #expect(await signal.wait(past: seen, timeout: .seconds(120)) == seen + 1)
        #expect(clock.now - started < .seconds(60))
    }

    @Test func aBlockedThreadWakesOnABumpOrAfterItsTimeout() async {
        let signal = ChangeSignal()
        let seen = signal.value
        let started = Date()
        #expect(signal.waitBlocking(past: seen, timeout: .milliseconds(30)) == seen)
        #expect(Date().timeIntervalSince(started) >= 0.025)
        let woken = Thread.detachNewThreadAndWait { signal.waitBlocking(past: seen, timeout: .seconds(120)) }
        try? await Task.sleep(for: .milliseconds(20))
        signal.bump()
        #expect(await woken.value == seen + 1)
        #expect(signal.waitBlocking(past: seen, timeout: .seconds(120)) == seen + 1, "a bump before waiting is not missed")
    }

    @Test func aWaiterGivesUpAfterItsTimeout() async {
        let signal = ChangeSignal()
        #expect(await signal.wait(past: signal.value, timeout: .milliseconds(30)) == 0)
    }

    @Test func aCancelledWaiterReturns() async {
        let signal = ChangeSignal()
        let task = Task { await signal.wait(past: 0, timeout: .seconds(120)) }
        try? await Task.sleep(for: .milliseconds(20))
        task.cancel()
        let clock = ContinuousClock()
        let started = clock.now
        #expect(await task.value == 0)
        #expect(clock.now - started < .seconds(60))
    }

    @Test(arguments: DatabaseFactory.all)
    func committedWritesWakeTheDispatchers(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            let before = store.outbox.enqueued.value
            try store.makeContext()
            try store.change(at: 1)
            #expect(store.outbox.enqueued.value == before + 2)
            try store.put("trip:2", type: "T", at: 2)
            #expect(store.outbox.enqueued.value == before + 3)
            try store.end("trip:2", at: 3)
            try store.end("trip:2", at: 4)
            #expect(store.outbox.enqueued.value == before + 5, "every write wakes the dispatchers, an end that changed nothing too")
        }
    }
}

extension Thread {
    /// Runs `body` on a new thread; its result is awaited without blocking a task's thread.
    static func detachNewThreadAndWait<T: Sendable>(_ body: @escaping @Sendable () -> T) -> Task<T, Never> {
        Task {
            await withCheckedContinuation { continuation in
                Thread.detachNewThread { continuation.resume(returning: body()) }
            }
        }
    }
}
