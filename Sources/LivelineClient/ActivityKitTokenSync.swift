#if canImport(ActivityKit) && (os(iOS) || LIVELINE_APPLE_GLUE)
import ActivityKit
import Foundation
import LivelineModel

/// Hands ActivityKit's tokens and states to Liveline (`docs/sdk.md`; `docs/painpoints.md` §1–2, §10):
/// the push-to-start token, the update token of every activity of `Attributes` — read
/// synchronously at launch as Apple recommends, then followed — and the user's dismissals.
/// Registration is idempotent, so doing it on every launch is right; a missing token is never
/// sent as null. Each activity is followed once (by `Activity.id`): `activityUpdates` may yield
/// one again (one `activities` listed already, or one that changed). Every Live Activity token
/// is registered with the fingerprint of `Attributes` as this build has it
/// (``LivelineModel/ContractSchema/fingerprint(attributes:contentState:typeName:)``): the server
/// then never sends it a state it cannot decode (`docs/contracts.md`, "Bring your own Live Activity").
///
/// ```swift
/// let sync = LiveActivityTokenSync(client: client, attributes: ParcelActivityAttributes.self) { "parcel:\($0.code)" }
/// sync.start()   // at launch, from the main actor
/// ```
@available(iOS 17.2, *)
@MainActor
public final class LiveActivityTokenSync<Attributes: ActivityAttributes> {
    let client: LivelineClient
    /// The type's name as the phone's `attributes-type` (the Swift type name).
    let typeName = String(describing: Attributes.self)
    /// The fingerprint of the type as compiled into this build.
    let fingerprint = ContractSchema.fingerprint(attributes: Attributes.self, contentState: Attributes.ContentState.self)
    let contextKey: (Attributes) -> String
    let frequentPushesEnabled: Bool
    private var tasks: [Task<Void, Never>] = []
    /// The ids of the activities followed (`Activity.id`).
    private var followed: Set<String> = []

    /// - Parameter contextKey: the server's context key of an activity (from its attributes).
    public init(client: LivelineClient, attributes: Attributes.Type, contextKey: @escaping (Attributes) -> String) {
        self.client = client
        self.contextKey = contextKey
        frequentPushesEnabled = ActivityAuthorizationInfo().frequentPushesEnabled
    }

    /// Starts following; call once at launch.
    public func start() {
        if let token = Activity<Attributes>.pushToStartToken { register(startToken: token) }
        tasks.append(
            Task { [weak self] in
                for await token in Activity<Attributes>.pushToStartTokenUpdates { self?.register(startToken: token) }
            })
        for activity in Activity<Attributes>.activities { follow(activity) }
        tasks.append(
            Task { [weak self] in
                for await activity in Activity<Attributes>.activityUpdates { self?.follow(activity) }
            })
    }

    /// Stops following.
    public func stop() {
        tasks.forEach { $0.cancel() }
        tasks = []
        followed = []
    }

    private func register(startToken: Data) {
        let client = client
        let frequent = frequentPushesEnabled
        let token = Self.hex(startToken)
        let (type, fingerprint) = (typeName, fingerprint)
        Task {
            _ = try? await client.register(
                .pushToStart, token: token, attributesType: type, frequentPushesEnabled: frequent, contractFingerprint: fingerprint)
        }
    }

    private func follow(_ activity: Activity<Attributes>) {
        guard followed.insert(activity.id).inserted else { return }
        let key = contextKey(activity.attributes)
        let client = client
        let frequent = frequentPushesEnabled
        let (type, fingerprint, id) = (typeName, fingerprint, activity.id)
        if let token = activity.pushToken {
            let hex = Self.hex(token)
            Task {
                _ = try? await client.register(
                    .update, token: hex, contextKey: key, attributesType: type, frequentPushesEnabled: frequent, contractFingerprint: fingerprint,
                    activityID: id)
            }
        }
        tasks.append(
            Task {
                for await token in activity.pushTokenUpdates {
                    _ = try? await client.register(
                        .update, token: Self.hex(token), contextKey: key, attributesType: type, frequentPushesEnabled: frequent,
                        contractFingerprint: fingerprint, activityID: id)
                }
            })
        tasks.append(
            Task {
                for await state in activity.activityStateUpdates where state == .ended || state == .dismissed {
                    // Ended: its tokens end (matched by id) and it is never renewed; dismissed: also no new start.
                    _ = try? await client.reportActivity(contextKey: key, state: .ended, style: nil, activityID: id)
                    if state == .dismissed { _ = try? await client.reportDismissed(contextKey: key) }
                }
            })
    }

    nonisolated static func hex(_ data: Data) -> String {
        data.map { String(format: "%02x", $0) }.joined()
    }
}
#endif
