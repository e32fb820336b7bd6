import LivelineAPI
import LivelineModel

/// The documentation of every route, and the schemas of their bodies.
enum APIDocumentation {
    static let string = Schema.string, integer = Schema.integer, boolean = Schema.boolean, dateTime = Schema.dateTime
    static let nullableString = Schema.nullableString, nullableNumber = Schema.nullableNumber, nullableInteger = Schema.nullableInteger
    static func ref(_ name: String) -> JSONValue { Schema.ref(name) }
    static func object(_ properties: KeyValuePairs<String, JSONValue>, required: [String]? = nil) -> JSONValue {
        Schema.object(properties, required: required)
    }

    static let routes: [RouteDocumentation] = [
        .init(Routes.healthz, "Liveness: answers while the server runs", auth: .none, response: "Health"),
        .init(Routes.openAPI, "This OpenAPI 3.1 document", auth: .none, response: "OpenAPIDocument"),
        .init(
            Routes.metrics, "Prometheus metrics: pushes by status and reason, outbox depth and age, dispatch latency, dead letters",
            auth: .admin, response: "PrometheusText", responseType: "text/plain"
        ),
        .init(Routes.me, "The caller's user and the members of their household", auth: .bearer, response: "Me"),
        .init(
            Routes.signOut, "End the caller's session: its bearer token is refused from now on, on every instance", auth: .bearer,
            response: "SignedOut"),
        .init(
            Routes.user, "A member of the caller's household (404 for anyone else)", auth: .bearer, response: "UserProfile", errors: [400, 404],
            path: [CommonFields.userID]),
        .init(
            Routes.registerToken, "Register a push token (idempotent; a newer token replaces the older, kept in history)",
            auth: .bearer, request: "RegisterToken", response: "RegisterTokenResult", errors: [400, 422]
        ),
        .init(
            Routes.unregisterToken, "Remove a push token of the caller's household", auth: .bearer, request: "UnregisterToken",
            response: "UnregisterTokenResult", errors: [400]),
        .init(Routes.listTokens, "The caller's devices and their active tokens (redacted)", auth: .bearer, response: "DeviceTokens"),
        .init(
            Routes.pullContext,
            "Pull a context's truth (the household's, or a /v1 context one of its devices follows); since_rev equal to the current rev: {key, type, state, rev, unchanged: true}",
            auth: .bearer, response: "ContextSnapshot", errors: [400, 404], path: [CommonFields.contextKey], query: [CommonFields.sinceRev]
        ),
        .init(Routes.optIns, "The caller's Live Activity opt-in per activity type (types not listed are on)", auth: .bearer, response: "OptIns"),
        .init(
            Routes.setOptIn, "Turn the caller's Live Activities of one type on or off (off: never push-started)",
            auth: .bearer, request: "OptIn", response: "OptIns", errors: [400]
        ),
        .init(
            Routes.activityDismissed,
            "The user swiped the context's activity away: no new start for them unless asked; their update tokens for it end",
            auth: .bearer, request: "DismissedReport", response: "DismissedResult", errors: [400, 404]
        ),
        .init(
            Routes.activityReceipt, "The device rendered this revision (the timeline shows sent against acknowledged)",
            auth: .bearer, request: "ReceiptReport", response: "ReceiptResult", errors: [400, 404, 409]
        ),
        .init(
            Routes.activityState,
            "The app's own activity of the context on this device: pending (scheduled by the app) until starts_at, active or ended; a transient one is never renewed",
            auth: .bearer, request: "ActivityStateReport", response: "ActivityStateResult", errors: [400, 404, 409, 422]
        ),
        .init(
            Routes.notifications, "The caller's inbox, newest first", auth: .bearer, response: "Notifications",
            links: RouteLink.each([Routes.readNotification], parameters: ["id": "$response.body#/notifications/0/id"])),
        .init(
            Routes.readNotification, "Mark one of the caller's notifications read", auth: .bearer, response: "NotificationRead", errors: [400, 404],
            path: [NotificationFields.id]),
        .init(
            Routes.webPushPublicKey, "The server's VAPID public key, for the web app's pushManager.subscribe (applicationServerKey)",
            auth: .bearer, response: "WebPushPublicKey"),
        .init(
            Routes.putContext, "Store a context's whole state (checked against its contract), bump its revision and push it",
            auth: .admin, request: "PutContext", response: "PutContextResult", errors: [400, 409, 422], path: [CommonFields.contextKey],
            mayCreate: true,
            links: RouteLink.each(
                [Routes.getContext, Routes.contextTimeline, Routes.startContext, Routes.endContext], parameters: ["key": "$response.body#/key"])
        ),
        .init(
            Routes.getContext, "A context's truth; with since_rev equal to the current revision only {key, type, state, rev, unchanged: true}",
            auth: .admin, response: "ContextSnapshot", errors: [400, 404], path: [CommonFields.contextKey], query: [CommonFields.sinceRev]
        ),
        .init(
            Routes.endContext, "End a context: its activities get the final state and are dismissed", auth: .admin, response: "EndContextResult",
            errors: [400, 404], path: [CommonFields.contextKey]),
        .init(
            Routes.contextTimeline, "A context's revisions, delivery attempts and dead letters, newest first",
            auth: .admin, response: "ContextTimeline", errors: [400, 404], path: [CommonFields.contextKey],
            query: [ContextFields.timelineLimit]
        ),
        .init(
            Routes.startContext, "Start the context's Live Activity by push-to-start: one start per device, within its start budget",
            auth: .admin, request: "StartContext", response: "StartContextResult", errors: [400, 404, 409, 422], path: [CommonFields.contextKey]
        ),
        .init(
            Routes.notify,
            "An inbox record, an alert push to each of the user's devices and a web push to each of their browser subscriptions, once per dedupeKey (201 when new)",
            auth: .admin, request: "Notify", response: "NotifyResult", errors: [400, 404, 422], mayCreate: true,
            links: RouteLink.each(
                [Routes.notificationTimeline], parameters: ["userId": "$request.body#/userId", "dedupeKey": "$request.body#/dedupeKey"])
        ),
        .init(
            Routes.notificationTimeline, "A notification's pushes (alert and web push) with their answers, and its dead letters, newest first",
            auth: .admin, response: "NotificationTimeline", errors: [400, 404],
            query: [
                CommonFields.userID.named("userId", required: true), NotificationFields.dedupeKey.named("dedupeKey", required: true),
                ContextFields.timelineLimit,
            ]
        ),
        .init(
            Routes.listContracts, "The contracts the server checks against: compiled in and loaded at run time (files, the API)", auth: .admin,
            response: "Contracts",
            links: RouteLink.each([Routes.getContract], parameters: ["type": "$response.body#/contracts/0/type"])),
        .init(
            Routes.putContract,
            "Add a version of an app's own contract (a contract file, docs/contracts.md); refused (409) when an installed version would drop its pushes, unless force=true",
            auth: .admin, request: "ContractFile", response: "ContractPutResult", errors: [400, 409, 413], path: [ContractFields.type],
            query: [ContractFields.force], mayCreate: true,
            links: RouteLink.each([Routes.getContract], parameters: ["type": "$response.body#/type"])),
        .init(
            Routes.getContract, "A contract as a contract file, its stored versions, and the versions installed on devices", auth: .admin,
            response: "Contract", errors: [400, 404], path: [ContractFields.type]),
        .init(
            Routes.sandboxAccepted,
            "What the in-process APNs sandbox (the server's own APNs for testing when no APNs key is configured) accepted, newest first; 404 when pushes go to APNs",
            auth: .admin, response: "SandboxAccepted", errors: [400, 404], query: [CommonFields.limit(1...SandboxRecord.defaultCapacity)]
        ),
        .init(
            Routes.resolveNotification, "Mark the user's notification with this dedupeKey resolved", auth: .admin, request: "Resolve",
            response: "ResolveResult", errors: [400, 404]),
    ]

    /// The core's schemas; `allowInsecureWebPush`: the web push endpoints registration takes with
    /// `LIVELINE_WEBPUSH_ALLOW_INSECURE` (``TokenFields/endpoint(allowInsecure:)``).
    /// `contractNames`: the registry's types (an opt-in and a push-to-start token name one);
    /// `widgetKinds`: the kinds a `widgets` token may serve.
    static func schemas(allowInsecureWebPush: Bool, contractNames: [String], widgetKinds: [String] = []) -> [String: JSONValue] {
        let tokens = TokenFields.schemas(allowInsecure: allowInsecureWebPush, contractNames: contractNames, widgetKinds: widgetKinds)
        var schemas = coreSchemas.merging(tokens) { first, _ in first }
        schemas["OptIn"] = object([
            "attributes_type": ["type": "string", "enum": .array(contractNames.map { .string($0) })], "enabled": boolean,
        ])
        return schemas
    }

    static let coreSchemas: [String: JSONValue] = [
        "Error": object(["error": object(["code": string, "message": string, "field": nullableString], required: ["code", "message"])]),
        "Health": object(["status": string, "version": string]),
        "SignedOut": object(["signedOut": boolean]),
        "OpenAPIDocument": ["type": "object"],
        "UserProfile": object([
            "userId": integer, "householdId": integer, "name": string, "avatarTint": string, "emoji": string,
            "locale": ["type": "string", "enum": ["de", "en"]],
        ]),
        "Me": object(["user": ref("UserProfile"), "householdName": string, "members": ["type": "array", "items": ref("UserProfile")]]),
        "RegisterTokenResult": object([
            "outcome": ["type": "string", "enum": ["created", "unchanged", "replaced"]],
            "kind": string, "environment": string, "deviceId": string, "tokenPrefix": string,
        ]),
        "UnregisterTokenResult": object(["removed": integer]),
        "PrometheusText": ["type": "string", "description": "Prometheus text exposition format 0.0.4"],
        "SandboxAccepted": object([
            "description": string, "total": integer, "kept": integer,
            "pushes": [
                "type": "array",
                "items": object(
                    [
                        "apnsId": string, "pushType": string, "priority": integer, "tokenPrefix": nullableString, "channelId": nullableString,
                        "bytes": integer, "event": nullableString, "acceptedAt": dateTime,
                    ], required: ["apnsId", "pushType", "priority", "bytes", "acceptedAt"]),
            ],
        ]),
        "Alert": object(["title": ref("AlertText"), "body": ref("AlertText"), "sound": string], required: ["title"]),
        "AlertText": [
            "description": "plain text, or a localized string of the app (loc-key, loc-args)",
            "oneOf": [string, object(["loc-key": string, "loc-args": ["type": "array", "items": string]], required: ["loc-key"])],
        ],
        "PutContextResult": object(["key": string, "rev": integer, "created": boolean]),
        "ContractField": object(
            [
                "key": string, "type": ["type": "string", "description": "String, Int, Double, Bool, Date, [T], or a name from types"],
                "optional": boolean, "since": integer, "summary": string,
            ], required: ["key", "type"]),
        "ContractFile": Schema.examples(
            object(
                [
                    "format": ["type": "string", "enum": [.string(ContractFile.format)]], "type": string,
                    "version": ["type": "integer", "minimum": 1, "maximum": .int(ContractFile.maximumVersion)],
                    "fingerprint": string,
                    "attributes": ["type": "array", "items": ref("ContractField")], "contentState": ["type": "array", "items": ref("ContractField")],
                    "types": [
                        "type": "object",
                        "additionalProperties": object(
                            ["enum": ["type": "array", "items": string], "fields": ["type": "array", "items": ref("ContractField")]], required: []),
                    ],
                    "example": object(["attributes": ["type": "object"], "contentState": ["type": "object"]], required: []),
                    "lifecycle": object(
                        [
                            "staleAfter": ["type": "number", "exclusiveMinimum": 0, "maximum": .double(ContractLifecycle.maximumStaleAfter)],
                            "dismissAfter": ["type": "number", "minimum": 0, "maximum": .double(ContractLifecycle.maximumDismissAfter)],
                            "priorityBudget": ["type": "integer", "minimum": 0],
                            "materialKeys": ["type": "array", "items": string],
                        ], required: []),
                    "card": object(
                        ["lockScreen": string, "compactLeading": string, "compactTrailing": string, "expanded": string], required: ["lockScreen"]),
                ], required: ["format", "type", "version", "attributes", "contentState"]
            ), [ContractFields.exampleFile]),
        "ContractPutResult": object(
            [
                "type": string, "version": integer, "fingerprint": string, "created": boolean,
                "changes": ["type": "array", "items": object(["keyPath": string, "breaking": boolean, "description": string])],
            ], required: ["type", "version", "fingerprint", "created", "changes"]),
        "Contracts": object([
            "contracts": [
                "type": "array",
                "items": object(
                    ["type": string, "version": integer, "fingerprint": string, "origin": ["type": "string", "enum": ["builtIn", "api", "file"]]],
                    required: ["type", "version", "fingerprint", "origin"]),
            ]
        ]),
        "Contract": object(
            [
                "type": string, "version": integer, "fingerprint": string, "origin": ["type": "string", "enum": ["builtIn", "api", "file"]],
                "contract": ref("ContractFile"),
                "versions": [
                    "type": "array", "items": object(["version": integer, "fingerprint": string, "origin": string, "createdAt": dateTime]),
                ],
                "installed": ["type": "array", "items": object(["version": nullableInteger, "fingerprint": nullableString, "devices": integer])],
            ], required: ["type", "version", "fingerprint", "origin", "contract", "versions", "installed"]),
        "EndContextResult": object(["key": string, "rev": integer, "alreadyEnded": boolean]),
        "ContextSnapshot": object(
            [
                "key": string, "type": string, "state": ["type": "string", "enum": ["active", "ended"]], "rev": integer,
                "unchanged": boolean, "attributes": ["type": "object"], "contentState": ["type": "object"],
                "startedAt": dateTime, "deadlineAt": dateTime, "endedAt": dateTime, "dismissalAt": dateTime,
            ], required: ["key", "type", "state", "rev", "unchanged"]),
        "ContextTimeline": object(
            [
                "key": string, "sentRev": integer, "acknowledged": ["type": "object", "additionalProperties": integer],
                "entries": [
                    "type": "array",
                    "items": object(
                        [
                            "kind": ["type": "string", "enum": ["revision", "delivery", "deadLetter", "start", "receipt", "renewal", "activity"]],
                            "at": dateTime,
                            "rev": integer,
                            "note": string, "targetKind": ["type": "string", "enum": ["token", "channel", "device"]], "target": string,
                            "status": integer, "reason": string, "apnsId": string, "priority": integer, "latencyMs": ["type": "number"],
                            "attempts": integer, "environment": ["type": "string", "enum": ["sandbox", "production"]],
                        ], required: ["kind", "at"]),
                ],
            ], required: ["key", "acknowledged", "entries"]),
        "NotificationTimeline": object(
            [
                "userId": integer, "dedupeKey": string,
                "entries": [
                    "type": "array",
                    "items": object(
                        [
                            "kind": ["type": "string", "enum": ["delivery", "deadLetter"]], "at": dateTime, "note": string,
                            "targetKind": ["type": "string", "enum": ["token"]], "target": string, "status": integer, "reason": string,
                            "apnsId": string, "priority": integer, "latencyMs": ["type": "number"], "attempts": integer,
                            "environment": ["type": "string", "enum": ["sandbox", "production"]],
                        ], required: ["kind", "at"]),
                ],
            ], required: ["userId", "dedupeKey", "entries"]),
        "StartContext": Schema.anyOf(
            object(
                [
                    "userIds": ["type": "array", "items": CommonFields.userID.schema, "maxItems": .int(ContextFields.startTargets.upperBound)],
                    "deviceIds": ["type": "array", "items": TokenFields.deviceID.schema, "maxItems": .int(ContextFields.startTargets.upperBound)],
                    "alert": ref("Alert"),
                    "includeDismissed": boolean, "useChannel": boolean, "at": CommonFields.startAt.schema,
                ], required: ["alert"]),
            [
                ["required": ["userIds"], "properties": ["userIds": ["type": "array", "minItems": 1]]],
                ["required": ["deviceIds"], "properties": ["deviceIds": ["type": "array", "minItems": 1]]],
            ]),
        "StartContextResult": object(
            [
                "key": string, "channelId": string, "channelIds": ["type": "object", "additionalProperties": string],
                "channelFallback": string,
                "starts": Schema.startOutcomes,
            ], required: ["key", "starts"]),
        "DismissedReport": object(["context_key": ActivityReportFields.contextKey.schema]),
        "OptIns": object(["preferences": ["type": "object", "additionalProperties": boolean]]),
        "DismissedResult": object(["contextKey": string, "endedTokens": integer]),
        "ReceiptReport": object(
            [
                "context_key": ActivityReportFields.contextKey.schema, "rev": ActivityReportFields.rev.schema,
                "device_id": TokenFields.deviceID.schema,
            ],
            required: ["context_key", "rev"]),
        "ActivityStateReport": object(
            [
                "context_key": ActivityReportFields.contextKey.schema, "attributes_type": ActivityReportFields.attributesType.schema,
                "device_id": TokenFields.deviceID.schema, "state": ActivityReportFields.state.schema,
                "starts_at": ActivityReportFields.startsAt.schema, "style": ActivityReportFields.style.schema,
                "activity_id": TokenFields.activityID.schema,
            ],
            required: ["context_key", "state"]),
        "ActivityStateResult": object(
            ["contextKey": string, "deviceId": string, "state": string, "style": string, "startsAt": dateTime, "activityId": string],
            required: ["contextKey", "deviceId", "state", "style"]),
        "ReceiptResult": object(["contextKey": string, "deviceId": string, "rev": integer]),
        "Notify": object(
            [
                "userId": CommonFields.userID.schema, "title": NotificationFields.title.schema, "body": NotificationFields.body.schema,
                "link": NotificationFields.link.schema, "icon": NotificationFields.icon.schema, "dedupeKey": NotificationFields.dedupeKey.schema,
                "ttl": NotificationFields.ttl.schema, "urgency": NotificationFields.urgency.schema, "topic": NotificationFields.topic.schema,
            ], required: ["userId", "title", "dedupeKey"]),
        "NotifyResult": object(
            ["created": boolean, "id": integer, "queued": ["type": "object", "additionalProperties": integer]], required: ["created", "queued"]),
        "Resolve": object(["userId": CommonFields.userID.schema, "dedupeKey": NotificationFields.dedupeKey.schema]),
        "ResolveResult": object(["resolved": boolean]),
        "Notifications": object([
            "notifications": [
                "type": "array",
                "items": object(
                    [
                        "id": integer, "title": string, "body": string, "icon": string, "link": string, "dedupeKey": string,
                        "resolved": boolean, "read": boolean, "createdAt": dateTime,
                    ], required: ["id", "title", "dedupeKey", "resolved", "read", "createdAt"]),
            ]
        ]),
        "NotificationRead": object(["id": integer, "read": boolean]),
        "WebPushPublicKey": object(["publicKey": string], required: ["publicKey"]),
        "DeviceTokens": object([
            "devices": [
                "type": "array",
                "items": object([
                    "deviceId": string,
                    "tokens": [
                        "type": "array",
                        "items": object(
                            [
                                "kind": string, "environment": string,
                                "environmentSource": ["type": "string", "enum": ["app", "default", "learned"]], "tokenPrefix": string,
                                "attributesType": nullableString,
                                "contextKey": nullableString, "frequentPushesEnabled": ["type": "boolean"],
                                "registeredAt": ["type": "string", "format": "date-time"],
                            ], required: ["kind", "environment", "environmentSource", "tokenPrefix", "frequentPushesEnabled", "registeredAt"]),
                    ],
                ]),
            ]
        ]),
    ]
}
