/// Every route of the Liveline API, declared once. The server serves exactly these; the client
/// SDK prints its paths from them; `/openapi.json` documents each of them.
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
    public static let optIns = Route(.get, "/api/la/preferences")
    public static let setOptIn = Route(.post, "/api/la/preferences")
    public static let notifications = Route(.get, "/api/notifications")
    public static let readNotification = Route(.post, "/api/notifications/{id}/read")
    /// The VAPID public key a web app passes to `pushManager.subscribe` (`applicationServerKey`).
    public static let webPushPublicKey = Route(.get, "/api/webpush/vapid-public-key")

    // MARK: Shopping (`docs/features/shopping.md`; paths as in the source document, bearer token)
    public static let shoppingWeek = Route(.get, "/api/shopping/{week}")
    public static let addShoppingItem = Route(.post, "/api/shopping/{week}/items")
    public static let updateShoppingItem = Route(.patch, "/api/shopping/items/{id}")
    public static let removeShoppingItem = Route(.delete, "/api/shopping/items/{id}")
    public static let startShopping = Route(.post, "/api/shopping/{week}/session")
    public static let shoppingHeartbeat = Route(.post, "/api/shopping/{week}/session/heartbeat")
    public static let endShopping = Route(.post, "/api/shopping/{week}/session/end")

    // MARK: Meal planning for two (`docs/features/cook-suggest.md`, bearer token)
    public static let createCookSuggestSession = Route(.post, "/api/cook-suggest/sessions")
    public static let cookSuggestSession = Route(.get, "/api/cook-suggest/sessions/{id}")
    public static let joinCookSuggest = Route(.post, "/api/cook-suggest/sessions/{id}/join")
    public static let cookSuggestAnswers = Route(.put, "/api/cook-suggest/sessions/{id}/answers")
    public static let cookSuggestReady = Route(.post, "/api/cook-suggest/sessions/{id}/ready")
    public static let cookSuggestPick = Route(.post, "/api/cook-suggest/sessions/{id}/pick")
    public static let cookSuggestConfirm = Route(.post, "/api/cook-suggest/sessions/{id}/confirm")
    public static let leaveCookSuggest = Route(.post, "/api/cook-suggest/sessions/{id}/leave")
    public static let cancelCookSuggest = Route(.post, "/api/cook-suggest/sessions/{id}/cancel")

    // MARK: Transit (`docs/features/transit.md`, bearer token)
    public static let transitStops = Route(.get, "/api/transit/stops")
    public static let transitDepartures = Route(.get, "/api/transit/departures")
    public static let startTrip = Route(.post, "/api/trips")
    public static let trip = Route(.get, "/api/trips/{id}")
    public static let endTrip = Route(.delete, "/api/trips/{id}")
    public static let endAllTrips = Route(.post, "/api/trips/end-all")

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

    /// What the in-process APNs sandbox (the server's own APNs for testing without an APNs key)
    /// accepted: the newest pushes, tokens by prefix (`?limit=`).
    public static let sandboxAccepted = Route(.get, "/v1/sandbox/accepted")

    /// All routes, in documentation order.
    public static let all: [Route] = [
        healthz, openAPI, metrics,
        me, signOut, user,
        registerToken, unregisterToken, listTokens,
        pullContext, activityDismissed, activityReceipt, optIns, setOptIn, notifications, readNotification, webPushPublicKey,
        shoppingWeek, addShoppingItem, updateShoppingItem, removeShoppingItem, startShopping, shoppingHeartbeat, endShopping,
        createCookSuggestSession, cookSuggestSession, joinCookSuggest, cookSuggestAnswers, cookSuggestReady, cookSuggestPick,
        cookSuggestConfirm, leaveCookSuggest, cancelCookSuggest,
        transitStops, transitDepartures, startTrip, trip, endTrip, endAllTrips,
        putContext, getContext, endContext, contextTimeline, startContext, notify, resolveNotification, notificationTimeline,
        sandboxAccepted,
    ]
}
