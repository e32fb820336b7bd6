import LivelineModel

/// What the simulated app does after a device decision, through the real API (`LivelineClient`).
public enum AppAction: Sendable {
    /// Register a token (a push-to-start token, a new update token, a rotated one).
    case register(kind: PushTokenKind, token: String, contextKey: String?, attributesType: String?)
    /// A push woke the app: pull the context's truth `?since_rev=`.
    case pull(contextKey: String, sinceRev: Int?)
    /// Report the revision the card shows.
    case receipt(contextKey: String, rev: Int)
    /// The user swiped the card away.
    case dismissed(contextKey: String)
    /// The user pressed a button on the card (``CardButton``): the app runs its intent through
    /// the API, then pulls the card.
    case intent(contextKey: String, AppIntent, sinceRev: Int?)
}
