import LivelineModel

/// The documentation of every route, and the schemas of their bodies.
enum APIDocumentation {
    static let routes: [RouteDocumentation] = [
        .init(Routes.healthz, "Liveness: answers while the server runs", auth: .none, response: "Health"),
        .init(Routes.openAPI, "This OpenAPI 3.1 document", auth: .none, response: "OpenAPIDocument"),
        .init(
            Routes.metrics, "Prometheus metrics: pushes by status and reason, outbox depth and age, dispatch latency, dead letters",
            auth: .admin, response: "PrometheusText", responseType: "text/plain"
        ),
        .init(Routes.me, "The caller's user and the members of their household", auth: .bearer, response: "Me"),
        .init(Routes.user, "A member of the caller's household (404 for anyone else)", auth: .bearer, response: "UserProfile", errors: [400, 404]),
        .init(
            Routes.registerToken, "Register a push token (idempotent; a newer token replaces the older, kept in history)",
            auth: .bearer, request: "RegisterToken", response: "RegisterTokenResult", errors: [400]
        ),
        .init(Routes.unregisterToken, "Remove a push token of the caller's household", auth: .bearer, request: "RegisterToken", response: "UnregisterTokenResult", errors: [400]),
        .init(Routes.listTokens, "The caller's devices and their active tokens (redacted)", auth: .bearer, response: "DeviceTokens"),
        .init(
            Routes.pullContext, "Pull a context's truth (the household's, or a /v1 context one of its devices follows); since_rev equal to the current rev: {key, type, state, rev, unchanged: true}",
            auth: .bearer, response: "ContextSnapshot", errors: [400, 404], query: [("since_rev", "the revision the app has (a whole number)")]
        ),
        .init(Routes.optIns, "The caller's Live Activity opt-in per activity type (types not listed are on)", auth: .bearer, response: "OptIns"),
        .init(
            Routes.setOptIn, "Turn the caller's Live Activities of one type on or off (off: never push-started)",
            auth: .bearer, request: "OptIn", response: "OptIns", errors: [400]
        ),
        .init(
            Routes.activityDismissed, "The user swiped the context's activity away: no new start for them unless asked; their update tokens for it end",
            auth: .bearer, request: "DismissedReport", response: "DismissedResult", errors: [400, 404]
        ),
        .init(
            Routes.activityReceipt, "The device rendered this revision (the timeline shows sent against acknowledged)",
            auth: .bearer, request: "ReceiptReport", response: "ReceiptResult", errors: [400, 404]
        ),
        .init(Routes.notifications, "The caller's inbox, newest first", auth: .bearer, response: "Notifications"),
        .init(Routes.readNotification, "Mark one of the caller's notifications read", auth: .bearer, response: "NotificationRead", errors: [400, 404]),
        .init(
            Routes.putContext, "Store a context's whole state (checked against its contract), bump its revision and push it",
            auth: .admin, request: "PutContext", response: "PutContextResult", errors: [400, 409, 422], mayCreate: true
        ),
        .init(
            Routes.getContext, "A context's truth; with since_rev equal to the current revision only {key, type, state, rev, unchanged: true}",
            auth: .admin, response: "ContextSnapshot", errors: [400, 404],
            query: [("since_rev", "the revision the caller has (a whole number)")]
        ),
        .init(Routes.endContext, "End a context: its activities get the final state and are dismissed", auth: .admin, response: "EndContextResult", errors: [400, 404]),
        .init(
            Routes.contextTimeline, "A context's revisions, delivery attempts and dead letters, newest first",
            auth: .admin, response: "ContextTimeline", errors: [400, 404], query: [("limit", "at most this many entries (1–1000, default 200)")]
        ),
        .init(
            Routes.startContext, "Start the context's Live Activity by push-to-start: one start per device, within its start budget",
            auth: .admin, request: "StartContext", response: "StartContextResult", errors: [400, 404, 409, 422]
        ),
        .init(
            Routes.notify, "An inbox record and an alert push to each of the user's devices, once per dedupeKey (201 when new)",
            auth: .admin, request: "Notify", response: "NotifyResult", errors: [400, 404, 422], mayCreate: true
        ),
        .init(
            Routes.shoppingWeek, "The household's list of a week (week = ISO date of its Monday) and its card; since_rev equal to the current rev: {week, rev, unchanged: true}",
            auth: .bearer, response: "ShoppingWeek", errors: [400], query: [("since_rev", "the revision the app has (a whole number)")]
        ),
        .init(
            Routes.addShoppingItem, "Add an item (label 1–200 characters, price in euros ≥ 0); by: the acting member (default: the caller)",
            auth: .bearer, request: "AddShoppingItem", response: "ShoppingItem", errors: [400, 403], mayCreate: true
        ),
        .init(
            Routes.updateShoppingItem, "Check an item off (done: true), put it back, or edit label, price (null removes it) or position",
            auth: .bearer, request: "UpdateShoppingItem", response: "ShoppingItem", errors: [400, 403, 404]
        ),
        .init(
            Routes.removeShoppingItem, "Remove an item (?by= the acting member)", auth: .bearer, response: "RemovedShoppingItem", errors: [400, 403, 404],
            query: [("by", "user id of the acting member of the household (default: the caller)")]
        ),
        .init(
            Routes.startShopping, "by starts shopping: an active shopper; the other members' devices get the card by push-to-start",
            auth: .bearer, request: "ShoppingSession", response: "ShoppingSessionResult", errors: [400, 403]
        ),
        .init(
            Routes.shoppingHeartbeat, "Keep the shopper's session alive (active: false when it lapsed; none is created)",
            auth: .bearer, request: "ShoppingSession", response: "ShoppingHeartbeat", errors: [400, 403]
        ),
        .init(
            Routes.endShopping, "Leave the shop; when the last shopper leaves the trip is finished and the card ends",
            auth: .bearer, request: "ShoppingSession", response: "ShoppingSessionEnd", errors: [400, 403]
        ),
        .init(Routes.resolveNotification, "Mark the user's notification with this dedupeKey resolved", auth: .admin, request: "Resolve", response: "ResolveResult", errors: [400, 404]),
    ]

    static let schemas: [String: JSONValue] = [
        "Error": object(["error": object(["code": string, "message": string, "field": nullableString], required: ["code", "message"])]),
        "Health": object(["status": string, "version": string]),
        "OpenAPIDocument": ["type": "object"],
        "UserProfile": object([
            "userId": integer, "householdId": integer, "name": string, "avatarTint": string, "emoji": string,
            "locale": ["type": "string", "enum": ["de", "en"]],
        ]),
        "Me": object(["user": ref("UserProfile"), "householdName": string, "members": ["type": "array", "items": ref("UserProfile")]]),
        "RegisterToken": object([
            "kind": ["type": "string", "enum": .array(PushTokenKind.allCases.map { .string($0.rawValue) })],
            "token": ["description": "hex APNs token, or for web-push the subscription {endpoint, keys: {p256dh, auth}} as object or JSON string",
                      "oneOf": [string, ["type": "object"]]],
            "context_key": string, "attributes_type": string,
            "environment": ["type": "string", "enum": ["sandbox", "production"]],
            "device_id": string, "frequent_pushes_enabled": ["type": "boolean"],
        ], required: ["kind", "token"]),
        "RegisterTokenResult": object([
            "outcome": ["type": "string", "enum": ["created", "unchanged", "replaced"]],
            "kind": string, "environment": string, "deviceId": string, "tokenPrefix": string,
        ]),
        "UnregisterTokenResult": object(["removed": integer]),
        "PrometheusText": ["type": "string", "description": "Prometheus text exposition format 0.0.4"],
        "PutContext": object([
            "type": ["type": "string", "description": "the contract name, e.g. TripLiveActivityAttributes",
                     "enum": .array(ContractRegistry.known.names.map { .string($0) })],
            "attributes": ["type": "object", "description": "static attributes (default {})"],
            "contentState": ["type": "object", "description": "the full content state; must decode into the contract"],
            "alert": object(["title": string, "body": string, "sound": string], required: ["title"]),
            "priority": ["type": "integer", "enum": [5, 10]],
            "relevanceScore": ["type": "number", "minimum": 0],
        ], required: ["type", "contentState"]),
        "PutContextResult": object(["key": string, "rev": integer, "created": boolean]),
        "EndContextResult": object(["key": string, "rev": integer, "alreadyEnded": boolean]),
        "ContextSnapshot": object([
            "key": string, "type": string, "state": ["type": "string", "enum": ["active", "ended"]], "rev": integer,
            "unchanged": boolean, "attributes": ["type": "object"], "contentState": ["type": "object"],
            "startedAt": dateTime, "deadlineAt": dateTime, "endedAt": dateTime, "dismissalAt": dateTime,
        ], required: ["key", "type", "state", "rev", "unchanged"]),
        "ContextTimeline": object([
            "key": string, "sentRev": integer, "acknowledged": ["type": "object", "additionalProperties": integer],
            "entries": ["type": "array", "items": object([
                "kind": ["type": "string", "enum": ["revision", "delivery", "deadLetter", "start", "receipt"]], "at": dateTime, "rev": integer,
                "note": string, "targetKind": ["type": "string", "enum": ["token", "channel", "device"]], "target": string,
                "status": integer, "reason": string, "apnsId": string, "priority": integer, "latencyMs": ["type": "number"],
                "attempts": integer,
            ], required: ["kind", "at"])],
        ], required: ["key", "acknowledged", "entries"]),
        "StartContext": object([
            "userIds": ["type": "array", "items": integer], "deviceIds": ["type": "array", "items": string],
            "alert": object(["title": string, "body": string, "sound": string], required: ["title"]),
            "includeDismissed": boolean, "useChannel": boolean,
        ], required: ["alert"]),
        "StartContextResult": object([
            "key": string, "channelId": string, "channelFallback": string,
            "starts": ["type": "array", "items": object([
                "outcome": ["type": "string", "enum": ["queued", "alreadyStarted", "overBudget", "dismissed", "optedOut", "noStartToken"]],
                "deviceId": string, "userId": integer, "reason": string,
            ], required: ["outcome"])],
        ], required: ["key", "starts"]),
        "DismissedReport": object(["context_key": string]),
        "OptIn": object(["attributes_type": ["type": "string", "enum": .array(ContractRegistry.known.names.map { .string($0) })], "enabled": boolean]),
        "OptIns": object(["preferences": ["type": "object", "additionalProperties": boolean]]),
        "DismissedResult": object(["contextKey": string, "endedTokens": integer]),
        "ReceiptReport": object(["context_key": string, "rev": integer, "device_id": string], required: ["context_key", "rev"]),
        "ReceiptResult": object(["contextKey": string, "deviceId": string, "rev": integer]),
        "Notify": object([
            "userId": integer, "title": string, "body": string, "link": string, "icon": string, "dedupeKey": string,
        ], required: ["userId", "title", "dedupeKey"]),
        "NotifyResult": object(["created": boolean, "id": integer, "queued": ["type": "object", "additionalProperties": integer]], required: ["created", "queued"]),
        "Resolve": object(["userId": integer, "dedupeKey": string]),
        "ResolveResult": object(["resolved": boolean]),
        "Notifications": object(["notifications": ["type": "array", "items": object([
            "id": integer, "title": string, "body": string, "icon": string, "link": string, "dedupeKey": string,
            "resolved": boolean, "read": boolean, "createdAt": dateTime,
        ], required: ["id", "title", "dedupeKey", "resolved", "read", "createdAt"])]]),
        "NotificationRead": object(["id": integer, "read": boolean]),
        "ShoppingListItem": object([
            "id": integer, "label": string, "price": nullableNumber, "position": integer, "done": boolean, "addedBy": nullableInteger,
            "addedAt": dateTime, "checkedBy": nullableInteger, "checkedAt": ["type": ["string", "null"], "format": "date-time"],
        ], required: ["id", "label", "position", "done", "addedAt"]),
        "ShoppingItem": [
            "description": "the item's fields, and the week's revision after the change",
            "allOf": [ref("ShoppingListItem"), object(["rev": integer])],
        ],
        "ShoppingWeek": object([
            "week": string, "rev": integer, "unchanged": boolean,
            "items": ["type": "array", "items": ref("ShoppingListItem")],
            "state": ["type": "object", "description": "the card's content state (ShoppingActivityAttributes.ContentState)"],
        ], required: ["week", "rev", "unchanged"]),
        "AddShoppingItem": object(["label": string, "price": ["type": "number", "minimum": 0], "by": integer], required: ["label"]),
        "UpdateShoppingItem": object([
            "done": boolean, "label": string, "price": nullableNumber, "position": ["type": "integer", "minimum": 0], "by": integer,
        ], required: []),
        "RemovedShoppingItem": object(["id": integer, "removed": boolean, "rev": integer]),
        "ShoppingSession": object(["by": integer], required: []),
        "ShoppingSessionResult": object([
            "week": string, "rev": integer, "contextKey": string,
            "activeShoppers": ["type": "array", "items": object(["name": string, "avatarTint": string, "userId": integer])],
            "channelId": string, "channelFallback": string,
            "starts": ["type": "array", "items": object([
                "outcome": ["type": "string", "enum": ["queued", "alreadyStarted", "overBudget", "dismissed", "optedOut", "noStartToken"]],
                "deviceId": string, "userId": integer, "reason": string,
            ], required: ["outcome"])],
        ], required: ["week", "rev", "contextKey", "activeShoppers", "starts"]),
        "ShoppingHeartbeat": object(["week": string, "active": boolean]),
        "ShoppingSessionEnd": object(["week": string, "rev": integer, "left": boolean, "finished": boolean]),
        "DeviceTokens": object(["devices": ["type": "array", "items": object([
            "deviceId": string,
            "tokens": ["type": "array", "items": object([
                "kind": string, "environment": string, "tokenPrefix": string, "attributesType": nullableString,
                "contextKey": nullableString, "frequentPushesEnabled": ["type": "boolean"],
                "registeredAt": ["type": "string", "format": "date-time"],
            ])],
        ])]]),
    ]

    static let string: JSONValue = ["type": "string"]
    static let integer: JSONValue = ["type": "integer"]
    static let boolean: JSONValue = ["type": "boolean"]
    static let dateTime: JSONValue = ["type": "string", "format": "date-time"]
    static let nullableString: JSONValue = ["type": ["string", "null"]]
    static let nullableNumber: JSONValue = ["type": ["number", "null"]]
    static let nullableInteger: JSONValue = ["type": ["integer", "null"]]

    static func ref(_ name: String) -> JSONValue { ["$ref": .string("#/components/schemas/\(name)")] }

    /// An object schema; every property is required unless `required` says otherwise.
    static func object(_ properties: KeyValuePairs<String, JSONValue>, required: [String]? = nil) -> JSONValue {
        let names = required ?? properties.map(\.key)
        return [
            "type": "object",
            "properties": .object(Dictionary(uniqueKeysWithValues: properties.map { ($0.key, $0.value) })),
            "required": .array(names.map { .string($0) }),
        ]
    }
}
