import LivelineModel

/// An active `la-update` token as the push to it needs it: the read a fan-out makes for each of
/// its tokens (``PushTokenRepository/updateTargets(contextKey:environment:householdID:onlyID:ledgerSince:in:)``).
public struct UpdateTarget: Sendable, Hashable {
    public var id: PushTokenID
    /// The device token, hex.
    public var token: String
    public var environment: PushEnvironment
    /// The app asked for the larger hourly budget of priority-10 pushes.
    public var frequentPushesEnabled: Bool
    public var environmentSource: PushEnvironmentSource
    /// The priority-10 pushes APNs accepted to this token for its context since the time the
    /// read was given (the budget's ledger), or nil when it was not asked for.
    public var priorityPushesAccepted: Int?

    public init(
        id: PushTokenID, token: String, environment: PushEnvironment, frequentPushesEnabled: Bool, environmentSource: PushEnvironmentSource,
        priorityPushesAccepted: Int? = nil
    ) {
        self.id = id
        self.token = token
        self.environment = environment
        self.frequentPushesEnabled = frequentPushesEnabled
        self.environmentSource = environmentSource
        self.priorityPushesAccepted = priorityPushesAccepted
    }
}
