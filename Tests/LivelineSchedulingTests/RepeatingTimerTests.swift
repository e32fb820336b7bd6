import Dispatch
import Foundation
import LivelineScheduling
import Synchronization
import Testing

struct RepeatingTimerTests {
    @Test func firesAgainAndAgainUntilCancelled() async throws {
        let queue = DispatchQueue(label: "timer-test")
        let runs = Mutex(0)
        let thirdRun = DispatchSemaphore(value: 0)
        let timer = RepeatingTimer(every: 0.01, firstAfter: 0, queue: queue) {
            let count = runs.withLock { count -> Int in
                count += 1
                return count
            }
            if count == 3 { thirdRun.signal() }
        }
        #expect(thirdRun.wait(timeout: .now() + 10) == .success)
        timer.cancel()
        queue.sync {}  // a run in progress has finished
        let afterCancel = runs.withLock { $0 }
        // Five intervals with no run: the cancelled timer stays quiet.
        try await Task.sleep(for: .milliseconds(50))
        queue.sync {}
        #expect(runs.withLock { $0 } == afterCancel)
        timer.cancel()  // twice is harmless
    }

    @Test func theFirstRunWaitsItsDelay() {
        let fired = DispatchSemaphore(value: 0)
        let start = ContinuousClock.now
        let timer = RepeatingTimer(every: 60, firstAfter: 0.2) { fired.signal() }
        #expect(fired.wait(timeout: .now() + 10) == .success)
        #expect(ContinuousClock.now - start >= .milliseconds(190))
        timer.cancel()
    }

    @Test func droppingTheLastReferenceStopsIt() async throws {
        let queue = DispatchQueue(label: "timer-test")
        let runs = Mutex(0)
        let firstRun = DispatchSemaphore(value: 0)
        var timer: RepeatingTimer? = RepeatingTimer(every: 0.01, firstAfter: 0, queue: queue) {
            runs.withLock { $0 += 1 }
            firstRun.signal()
        }
        #expect(firstRun.wait(timeout: .now() + 10) == .success)
        #expect(timer != nil)
        timer = nil
        queue.sync {}
        let afterRelease = runs.withLock { $0 }
        try await Task.sleep(for: .milliseconds(50))
        queue.sync {}
        #expect(runs.withLock { $0 } == afterRelease)
    }

    @Test(arguments: [false, true]) func schedulerRunsOnceAfterItsDelay(asDuration: Bool) async throws {
        let queue = DispatchQueue(label: "scheduler-test")
        let runs = Mutex(0)
        let ran = DispatchSemaphore(value: 0)
        let start = ContinuousClock.now
        let work: @Sendable () -> Void = {
            runs.withLock { $0 += 1 }
            ran.signal()
        }
        if asDuration {
            Scheduler.after(.milliseconds(150), on: queue, work)
        } else {
            Scheduler.after(0.15, on: queue, work)
        }
        #expect(ran.wait(timeout: .now() + 10) == .success)
        #expect(ContinuousClock.now - start >= .milliseconds(140))
        try await Task.sleep(for: .milliseconds(50))
        queue.sync {}
        #expect(runs.withLock { $0 } == 1)
    }
}
