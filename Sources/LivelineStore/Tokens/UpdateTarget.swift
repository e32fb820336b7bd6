import LivelineModel

/// An active `la-update` token as the push to it needs it: the read a fan-out makes for each of
/// its tokens (``PushTokenRepository/updateTargets(contextKey:environment:householdID:onlyID:in:)``).
public struct UpdateTarget: Sendable, Hashable {
    public var id: PushTokenID
    /// The device token, hex.
    public var token: String
    public var environment: PushEnvironment
    /// The app asked for the larger hourly budget of priority-10 pushes.
    public var frequentPushesEnabled: Bool
    public var environmentSource: PushEnvironmentSource

    public init(
        id: PushTokenID, token: String, environment: PushEnvironment, frequentPushesEnabled: Bool, environmentSource: PushEnvironmentSource
    ) {
        self.id = id
        self.token = token
        self.environment = environment
        self.frequentPushesEnabled = frequentPushesEnabled
        self.environmentSource = environmentSource
    }
}
