import LivelineAPI
import LivelineModel
import LivelineShoppingModel

/// What `/openapi.json` says about the shopping routes and their bodies.
enum ShoppingDocumentation {
    private static let string = Schema.string, integer = Schema.integer, boolean = Schema.boolean, dateTime = Schema.dateTime
    private static let nullableNumber = Schema.nullableNumber, nullableInteger = Schema.nullableInteger
    private static func ref(_ name: String) -> JSONValue { Schema.ref(name) }
    private static func object(_ properties: KeyValuePairs<String, JSONValue>, required: [String]? = nil) -> JSONValue {
        Schema.object(properties, required: required)
    }

    static let part = APIDocumentationPart(routes: routes, schemas: schemas)

    static let routes: [RouteDocumentation] = [
        .init(
            Routes.shoppingWeek,
            "The household's list of a week (week = ISO date of its Monday) and its card; since_rev equal to the current rev: {week, rev, unchanged: true}",
            auth: .bearer, response: "ShoppingWeek", errors: [400], path: [ShoppingFields.week], query: [CommonFields.sinceRev]
        ),
        .init(
            Routes.addShoppingItem, "Add an item (label 1–200 characters, price in euros ≥ 0); by: the acting member (default: the caller)",
            auth: .bearer, request: "AddShoppingItem", response: "ShoppingItem", errors: [400, 403], path: [ShoppingFields.week], mayCreate: true,
            links: RouteLink.each([Routes.updateShoppingItem, Routes.removeShoppingItem], parameters: ["id": "$response.body#/id"])
                + RouteLink.each([Routes.shoppingWeek], parameters: ["week": "$request.path.week"])
        ),
        .init(
            Routes.updateShoppingItem, "Check an item off (done: true), put it back, or edit label, price (null removes it) or position",
            auth: .bearer, request: "UpdateShoppingItem", response: "ShoppingItem", errors: [400, 403, 404], path: [ShoppingFields.itemID]
        ),
        .init(
            Routes.removeShoppingItem, "Remove an item (?by= the acting member)", auth: .bearer, response: "RemovedShoppingItem",
            errors: [400, 403, 404],
            path: [ShoppingFields.itemID], query: [CommonFields.by]
        ),
        .init(
            Routes.startShopping, "by starts shopping: an active shopper; the other members' devices get the card by push-to-start",
            auth: .bearer, request: "ShoppingSession", response: "ShoppingSessionResult", errors: [400, 403], path: [ShoppingFields.week],
            bodyRequired: false,
            links: RouteLink.each([Routes.shoppingHeartbeat, Routes.endShopping], parameters: ["week": "$request.path.week"])
                + [RouteLink("getApiContextsKey", to: Routes.pullContext, parameters: ["key": "$response.body#/contextKey"])]
        ),
        .init(
            Routes.shoppingHeartbeat, "Keep the shopper's session alive (active: false when it lapsed; none is created)",
            auth: .bearer, request: "ShoppingSession", response: "ShoppingHeartbeat", errors: [400, 403], path: [ShoppingFields.week],
            bodyRequired: false
        ),
        .init(
            Routes.endShopping, "Leave the shop; when the last shopper leaves the trip is finished and the card ends",
            auth: .bearer, request: "ShoppingSession", response: "ShoppingSessionEnd", errors: [400, 403], path: [ShoppingFields.week],
            bodyRequired: false
        ),
    ]

    static let schemas: [String: JSONValue] = ShoppingFields.week.components.merging(bodySchemas) { first, _ in first }

    static let bodySchemas: [String: JSONValue] = [
        "ShoppingListItem": object(
            [
                "id": integer, "label": string, "price": nullableNumber, "position": integer, "done": boolean, "addedBy": nullableInteger,
                "addedAt": dateTime, "checkedBy": nullableInteger, "checkedAt": ["type": ["string", "null"], "format": "date-time"],
            ], required: ["id", "label", "position", "done", "addedAt"]),
        "ShoppingItem": [
            "description": "the item's fields, and the week's revision after the change",
            "allOf": [ref("ShoppingListItem"), object(["rev": integer])],
        ],
        "ShoppingWeek": object(
            [
                "week": string, "rev": integer, "unchanged": boolean,
                "items": ["type": "array", "items": ref("ShoppingListItem")],
                "state": ["type": "object", "description": "the card's content state (ShoppingActivityAttributes.ContentState)"],
            ], required: ["week", "rev", "unchanged"]),
        "AddShoppingItem": object(
            ["label": ShoppingFields.label.schema, "price": ShoppingFields.price.schema, "by": CommonFields.by.schema], required: ["label"]),
        "UpdateShoppingItem": Schema.anyOfRequired(
            object(
                [
                    "done": boolean, "label": ShoppingFields.label.schema, "price": ["anyOf": [ShoppingFields.price.schema, ["type": "null"]]],
                    "position": ShoppingFields.position.schema, "by": CommonFields.by.schema,
                ], required: []),
            ["done", "label", "price", "position"], nullCounts: ["price"]),
        "RemovedShoppingItem": object(["id": integer, "removed": boolean, "rev": integer]),
        "ShoppingSession": object(["by": CommonFields.by.schema], required: []),
        "ShoppingSessionResult": object(
            [
                "week": string, "rev": integer, "contextKey": string,
                "activeShoppers": ["type": "array", "items": object(["name": string, "avatarTint": string, "userId": integer])],
                "channelId": string, "channelFallback": string,
                "starts": Schema.startOutcomes,
            ], required: ["week", "rev", "contextKey", "activeShoppers", "starts"]),
        "ShoppingHeartbeat": object(["week": string, "active": boolean]),
        "ShoppingSessionEnd": object(["week": string, "rev": integer, "left": boolean, "finished": boolean]),
    ]
}
