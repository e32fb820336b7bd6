/// Every route of the core's API, declared once. The server serves these and its features' routes
/// (each declared in its feature's model module, e.g. `Routes.shopping` in `LivelineShoppingModel`);
/// the client SDK prints its paths from them; `/openapi.json` documents each of them.
public enum Routes {
    // MARK: Operation (no auth)
    public static let healthz = Route(.get, "/healthz")
    public static let openAPI = Route(.get, "/openapi.json")
    /// Prometheus text format (admin key).
    public static let metrics = Route(.get, "/metrics")

    // MARK: App API (bearer token of a user)
    public static let me = Route(.get, "/api/me")
    /// Ends the caller's session: its bearer token is refused from then on.
    public static let signOut = Route(.post, "/api/me/sign-out")
    public static let user = Route(.get, "/api/users/{userId}")
    public static let registerToken = Route(.post, "/api/apns/register")
    public static let unregisterToken = Route(.delete, "/api/apns/register")
    public static let listTokens = Route(.get, "/api/apns/register")
    public static let pullContext = Route(.get, "/api/contexts/{key}")
    public static let activityDismissed = Route(.post, "/api/la/dismissed")
    public static let activityReceipt = Route(.post, "/api/la/receipts")
    public static let activityState = Route(.post, "/api/la/activity")
    public static let optIns = Route(.get, "/api/la/preferences")
    public static let setOptIn = Route(.post, "/api/la/preferences")
    public static let notifications = Route(.get, "/api/notifications")
    public static let readNotification = Route(.post, "/api/notifications/{id}/read")
    /// The VAPID public key a web app passes to `pushManager.subscribe` (`applicationServerKey`).
    public static let webPushPublicKey = Route(.get, "/api/webpush/vapid-public-key")

    // MARK: Generic API for other backends (admin key)
    public static let putContext = Route(.put, "/v1/contexts/{key}")
    public static let getContext = Route(.get, "/v1/contexts/{key}")
    public static let endContext = Route(.post, "/v1/contexts/{key}/end")
    public static let contextTimeline = Route(.get, "/v1/contexts/{key}/timeline")
    public static let startContext = Route(.post, "/v1/contexts/{key}/start")
    public static let notify = Route(.post, "/v1/notify")
    public static let resolveNotification = Route(.post, "/v1/notify/resolve")
    /// `?userId=…&dedupeKey=…`: a notification's pushes and their answers, its dead letters.
    public static let notificationTimeline = Route(.get, "/v1/notify/timeline")

    /// The contracts the server knows: compiled in and loaded at run time (`docs/contracts.md`).
    public static let listContracts = Route(.get, "/v1/contracts")
    /// Adds a version of an app's own contract (a contract file); `?force=true` takes a breaking one.
    public static let putContract = Route(.put, "/v1/contracts/{type}")
    /// A contract, its versions and the versions installed on devices.
    public static let getContract = Route(.get, "/v1/contracts/{type}")

    /// What the in-process APNs sandbox (the server's own APNs for testing without an APNs key)
    /// accepted: the newest pushes, tokens by prefix (`?limit=`).
    public static let sandboxAccepted = Route(.get, "/v1/sandbox/accepted")

    /// The core's routes, in documentation order (a feature's are in its model module).
    public static let all: [Route] = [
        healthz, openAPI, metrics,
        me, signOut, user,
        registerToken, unregisterToken, listTokens,
        pullContext, activityDismissed, activityReceipt, activityState, optIns, setOptIn, notifications, readNotification, webPushPublicKey,
        putContext, getContext, endContext, contextTimeline, startContext, notify, resolveNotification, notificationTimeline,
        listContracts, putContract, getContract, sandboxAccepted,
    ]
}
