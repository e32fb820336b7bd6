import LivelineModel

/// What the simulated app does after a device decision, through the real API (`LivelineClient`).
public enum AppAction: Sendable, Hashable {
    /// Register a token (a push-to-start token, a new update token, a rotated one).
    case register(kind: PushTokenKind, token: String, contextKey: String?, attributesType: String?)
    /// A push woke the app: pull the context's truth `?since_rev=`.
    case pull(contextKey: String, sinceRev: Int?)
    /// Report the revision the card shows.
    case receipt(contextKey: String, rev: Int)
    /// The user swiped the card away.
    case dismissed(contextKey: String)
    /// The user checked a shopping item off from the card (the Dynamic Island's button, an App
    /// Intent): `PATCH /api/shopping/items/{id}` with `done: true`, then a pull of the card.
    case checkOff(contextKey: String, itemID: Int, sinceRev: Int?)
}
