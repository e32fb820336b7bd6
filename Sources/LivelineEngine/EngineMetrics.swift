import Foundation
import LivelineModel
import Synchronization

/// Counters the dispatcher keeps for `/metrics`: pushes by APNs environment, status and reason,
/// channel management apart from them, dead letters, and a histogram of dispatch latency (from a
/// row being due to APNs' answer).
public final class EngineMetrics: Sendable {
    /// What one push counter counts: APNs' answers of one kind in one environment.
    public struct PushAnswer: Sendable, Hashable, Comparable {
        public var environment: PushEnvironment
        /// 0: no answer.
        public var status: Int
        /// APNs' reason; empty when it gave none.
        public var reason: String

        public static func < (a: PushAnswer, b: PushAnswer) -> Bool {
            (a.environment.rawValue, a.status, a.reason) < (b.environment.rawValue, b.status, b.reason)
        }
    }

    /// What one channel management counter counts: APNs' answers to one operation on broadcast
    /// channels in one environment: its channel management API, not a push (Related APNs
    /// documentation: "Sending channel management requests to APNs"; `docs/apns.md` §1.8).
    public struct ChannelAnswer: Sendable, Hashable, Comparable {
        public enum Operation: String, Sendable, Hashable, CaseIterable {
            /// `POST /1/apps/{bundleID}/channels`: APNs answers 201 with the channel's id.
            case create
            /// `DELETE /1/apps/{bundleID}/channels`: APNs answers 204.
            case delete
        }

        public var environment: PushEnvironment
        public var operation: Operation
        /// 0: no answer.
        public var status: Int
        /// APNs' reason; empty when it gave none.
        public var reason: String

        public static func < (a: ChannelAnswer, b: ChannelAnswer) -> Bool {
            (a.environment.rawValue, a.operation.rawValue, a.status, a.reason) < (b.environment.rawValue, b.operation.rawValue, b.status, b.reason)
        }
    }

    /// Upper bounds of the latency histogram's buckets, in seconds.
    public static let latencyBuckets: [Double] = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]

    public struct Snapshot: Sendable {
        /// Answers to pushes (to device tokens and to broadcast channels).
        public var pushes: [PushAnswer: Int]
        /// Answers to the creation and deletion of broadcast channels: not pushes.
        public var channelOperations: [ChannelAnswer: Int] = [:]
        public var deadLetters: Int
        public var latencyCounts: [Int]  // per bucket, cumulative in the Prometheus text
        public var latencySum: Double
        public var latencyCount: Int
        public var starts: [String: Int] = [:]  // outcome → count
        public var budgetLimited = 0
        /// Push services' answers to web pushes, by HTTP status (0: no answer).
        public var webPushes: [Int: Int] = [:]
    }

    private let state = Mutex(
        Snapshot(
            pushes: [:], deadLetters: 0, latencyCounts: Array(repeating: 0, count: EngineMetrics.latencyBuckets.count + 1), latencySum: 0,
            latencyCount: 0))

    public init() {}

    /// Counts `count` answers alike.
    func push(_ answer: PushAnswer, count: Int) { state.withLock { $0.pushes[answer, default: 0] += count } }

    func channelOperation(_ operation: ChannelAnswer.Operation, environment: PushEnvironment, status: Int, reason: String?) {
        state.withLock {
            $0.channelOperations[ChannelAnswer(environment: environment, operation: operation, status: status, reason: reason ?? ""), default: 0] += 1
        }
    }

    func webPush(status: Int) { state.withLock { $0.webPushes[status, default: 0] += 1 } }

    func deadLetter() { state.withLock { $0.deadLetters += 1 } }

    func budgetLimited(_ count: Int) { state.withLock { $0.budgetLimited += count } }

    func start(outcome: String) { state.withLock { $0.starts[outcome, default: 0] += 1 } }

    func dispatchLatency(_ seconds: Double) {
        let index = Self.latencyBuckets.firstIndex { seconds <= $0 } ?? Self.latencyBuckets.count
        state.withLock {
            $0.latencyCounts[index] += 1
            $0.latencySum += seconds
            $0.latencyCount += 1
        }
    }

    public var snapshot: Snapshot { state.withLock { $0 } }
}
