/// Where a push token's APNs environment came from (`push_tokens.environment_source`).
public enum PushEnvironmentSource: String, Sendable, Hashable, Codable {
    /// The app said so when it registered the token.
    case app
    /// The registration did not say: the server's default environment was taken. A
    /// `BadDeviceToken` there is tried once in the other environment before the token is dead.
    case `default`
    /// The other environment accepted it after the default one refused it.
    case learned
}
