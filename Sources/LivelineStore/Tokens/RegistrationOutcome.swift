import LivelineModel

/// What ``PushTokenRepository/register(_:now:)`` did: `created`, `unchanged` or `replaced`, the same
/// values the API answers with (`RegisterTokenResponse.Outcome`).
public typealias RegistrationOutcome = RegisterTokenResponse.Outcome
