import Foundation
import LivelineModel

/// Keeps one context's snapshot true (`docs/sdk.md`, "Reconcile"): it pulls when a push wakes
/// the app and when the app comes to the foreground, applies what is newer (the revision guard),
/// writes it to the shared snapshot store for the extensions, reports the rendered revision, and
/// tells how fresh it is. Network failures are retried with backoff; push = wake-up, pull = truth.
public actor Reconciler<State: Codable & Sendable> {
    /// What one reconcile did.
    public enum Outcome: Sendable {
        /// A newer snapshot was applied (and stored).
        case applied(rev: Int)
        /// The server had nothing newer.
        case unchanged(rev: Int)
        /// An answer came, but not a newer one (it lost against what is held).
        case stale(rev: Int)
        /// It failed after its tries; what is held stays, and its freshness says how old it is.
        case failed(LivelineClientError)
    }

    public let contextKey: String
    private let pull: @Sendable (Int?) async throws -> PullResult<State>
    private let receipt: (@Sendable (Int) async throws -> Void)?
    private let store: SharedSnapshotStore?
    private let retryDelays: [Duration]
    private let clock: @Sendable () -> Date
    private var holder = SnapshotHolder<State>()

    /// - Parameters:
    ///   - pull: one pull with the revision held (nil: the whole truth).
    ///   - receipt: reports a rendered revision (nil: none).
    ///   - store: where the extensions read the snapshot (nil: nowhere); what it holds is loaded first.
    ///   - retryDelays: the waits between tries after a network failure (default 0.5 s, 2 s, 8 s).
    public init(
        contextKey: String, pull: @escaping @Sendable (Int?) async throws -> PullResult<State>,
        receipt: (@Sendable (Int) async throws -> Void)? = nil, store: SharedSnapshotStore? = nil,
        retryDelays: [Duration] = [.milliseconds(500), .seconds(2), .seconds(8)], clock: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.contextKey = contextKey
        self.pull = pull
        self.receipt = receipt
        self.store = store
        self.retryDelays = retryDelays
        self.clock = clock
        if let stored = try? store?.read(State.self, contextKey: contextKey) {
            holder = SnapshotHolder(current: stored)
        }
    }

    /// The snapshot shown now.
    public var snapshot: Snapshot<State>? { holder.current }

    /// Whether the state shown is a local change not yet confirmed by the server.
    public var isOptimistic: Bool { holder.isOptimistic }

    /// How fresh the shown state is at `now` (default: the reconciler's clock).
    public func freshness(now: Date? = nil, liveWithin: TimeInterval = 120) -> Freshness {
        Freshness.of(lastPull: holder.lastPulledAt, now: now ?? clock(), liveWithin: liveWithin)
    }

    /// A push woke the app: pull the truth.
    @discardableResult
    public func pushArrived() async -> Outcome { await reconcile() }

    /// The app came to the foreground: pull the truth.
    @discardableResult
    public func enteredForeground() async -> Outcome { await reconcile() }

    /// Shows a local change at once; the next reconcile replaces it with the server's truth.
    public func applyOptimistic(_ state: State) {
        holder.applyOptimistic(state, at: clock())
    }

    /// Applies a snapshot that came another way (e.g. decoded from a push): kept only if newer.
    @discardableResult
    public func offer(_ snapshot: Snapshot<State>) -> Bool {
        guard holder.apply(snapshot) else { return false }
        try? store?.write(snapshot)
        return true
    }

    /// Pulls (with the revision held) and applies the answer; retries network failures and 5xx
    /// after the configured delays.
    @discardableResult
    public func reconcile() async -> Outcome {
        var attempt = 0
        while true {
            do {
                let result = try await pull(holder.sinceRev)
                let pulledAt = clock()
                switch result {
                case .unchanged(let rev):
                    holder.confirm(rev: rev, at: pulledAt)
                    return .unchanged(rev: rev)
                case .snapshot(let snapshot):
                    guard holder.apply(snapshot, pulledAt: pulledAt) else { return .stale(rev: snapshot.rev) }
                    try? store?.write(snapshot)
                    if let receipt { try? await receipt(snapshot.rev) }
                    return .applied(rev: snapshot.rev)
                }
            } catch {
                let failure = error as? LivelineClientError ?? .network("\(error)")
                guard failure.isTransient, attempt < retryDelays.count else { return .failed(failure) }
                try? await Task.sleep(for: retryDelays[attempt])
                attempt += 1
            }
        }
    }
}

extension LivelineClient {
    /// A reconciler of one context of contract `Contract`: pulls through this client, reports
    /// receipts, and keeps the snapshot in `store` for the extensions.
    public func reconciler<Contract: LiveActivityContract>(
        for contract: Contract.Type, contextKey: String, store: SharedSnapshotStore? = nil, reportReceipts: Bool = true,
        retryDelays: [Duration] = [.milliseconds(500), .seconds(2), .seconds(8)]
    ) -> Reconciler<Contract.ContentState> {
        let pull: @Sendable (Int?) async throws -> PullResult<Contract.ContentState> = { [self] sinceRev in
            try await self.pull(contract, contextKey: contextKey, sinceRev: sinceRev)
        }
        var receipt: (@Sendable (Int) async throws -> Void)?
        if reportReceipts {
            receipt = { [self] rev in _ = try await self.reportReceipt(contextKey: contextKey, rev: rev) }
        }
        return Reconciler(contextKey: contextKey, pull: pull, receipt: receipt, store: store, retryDelays: retryDelays)
    }
}
