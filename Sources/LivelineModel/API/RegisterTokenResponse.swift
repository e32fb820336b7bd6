/// Answer of `POST /api/apns/register`.
public struct RegisterTokenResponse: Codable, Sendable, Hashable {
    /// What the call did to the registry.
    public enum Outcome: String, JSONEnum, Sendable, Hashable {
        /// A token was stored where none was.
        case created
        /// The same token was already registered; only its registration time moved.
        case unchanged
        /// A newer token took the place of an older one (kept in the history).
        case replaced
    }

    public var outcome: Outcome
    public var kind: PushTokenKind
    public var environment: PushEnvironment
    public var deviceID: String
    /// The token's first characters, enough to recognise it; never the whole token.
    public var tokenPrefix: String

    public init(outcome: Outcome, kind: PushTokenKind, environment: PushEnvironment, deviceID: String, tokenPrefix: String) {
        self.outcome = outcome
        self.kind = kind
        self.environment = environment
        self.deviceID = deviceID
        self.tokenPrefix = tokenPrefix
    }

    enum CodingKeys: String, CodingKey {
        case outcome, kind, environment, deviceID = "deviceId", tokenPrefix
    }
}

/// Answer of `DELETE /api/apns/register`.
public struct UnregisterTokenResponse: Codable, Sendable, Hashable {
    /// How many registrations the token had and no longer has (0 when it was not registered).
    public var removed: Int

    public init(removed: Int) { self.removed = removed }
}
