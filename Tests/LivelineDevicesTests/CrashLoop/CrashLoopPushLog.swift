import LivelineSandbox
import Synchronization

/// Every push the APNs sandbox accepted, in order (its own record keeps only the latest per target).
final class CrashLoopPushLog: Sendable {
    private let pushes = Mutex<[AcceptedPush]>([])

    func append(_ push: AcceptedPush) { pushes.withLock { $0.append(push) } }

    var all: [AcceptedPush] { pushes.withLock { $0 } }
}
