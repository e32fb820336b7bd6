import LivelineAPI
import LivelineCookSuggestModel
import LivelineModel

/// What `/openapi.json` says about the meal-planning routes and their bodies.
enum CookSuggestDocumentation {
    private static let string = Schema.string, integer = Schema.integer, boolean = Schema.boolean, dateTime = Schema.dateTime
    private static let nullableString = Schema.nullableString
    private static func ref(_ name: String) -> JSONValue { Schema.ref(name) }
    private static func object(_ properties: KeyValuePairs<String, JSONValue>, required: [String]? = nil) -> JSONValue {
        Schema.object(properties, required: required)
    }
    private static func strings(_ values: [String]) -> JSONValue {
        ["type": "array", "items": ["type": "string", "enum": .array(values.map(JSONValue.string))]]
    }

    static let id = CommonFields.publicID(prefix: CookSuggestDomain.idPrefix, about: "a session id")

    static let part = APIDocumentationPart(routes: routes, schemas: schemas)

    static let routes: [RouteDocumentation] = [
        .init(
            Routes.createCookSuggestSession,
            "Start planning a meal (date: the day, default today; with_user_id: the partner, who is invited by push-to-start, alert push and web push; by: who starts it). The same create again while that session is open answers it with 200 and created: false",
            auth: .bearer, request: "CreateCookSuggestSession", response: "CookSuggestSession", errors: [400, 403, 409], bodyRequired: false,
            mayCreate: true,
            links: RouteLink.each(
                [
                    Routes.cookSuggestSession, Routes.joinCookSuggest, Routes.cookSuggestAnswers, Routes.cookSuggestReady, Routes.cookSuggestPick,
                    Routes.cookSuggestConfirm, Routes.leaveCookSuggest, Routes.cancelCookSuggest,
                ], parameters: ["id": "$response.body#/id"])
                + [RouteLink("getApiContextsKey", to: Routes.pullContext, parameters: ["key": "$response.body#/contextKey"])]
        ),
        .init(
            Routes.cookSuggestSession,
            "The truth: state, participants, proposals and the caller's card; since_rev equal to the current rev: {id, rev, unchanged: true}",
            auth: .bearer, response: "CookSuggestSession", errors: [400, 403, 404], path: [id], query: [CommonFields.sinceRev]
        ),
        .init(
            Routes.joinCookSuggest, "The invited partner opens the session", auth: .bearer, request: "CookSuggestStep",
            response: "CookSuggestSession", errors: [400, 403, 404, 409], path: [id], bodyRequired: false
        ),
        .init(
            Routes.cookSuggestAnswers, "The participant's answers (in answering), replacing their earlier ones", auth: .bearer,
            request: "CookSuggestAnswers", response: "CookSuggestSession", errors: [400, 403, 404, 409], path: [id],
            bodyRequired: false
        ),
        .init(
            Routes.cookSuggestReady, "The participant is done answering (in answering); when everyone is, the proposals are generated",
            auth: .bearer, request: "CookSuggestStep", response: "CookSuggestSession", errors: [400, 403, 404, 409], path: [id], bodyRequired: false
        ),
        .init(
            Routes.cookSuggestPick, "The participant picks a proposal (in proposed): the partner's card asks about it", auth: .bearer,
            request: "CookSuggestProposalChoice", response: "CookSuggestSession", errors: [400, 403, 404, 409],
            path: [id]
        ),
        .init(
            Routes.cookSuggestConfirm,
            "The participant confirms a proposal (in proposed); when everyone confirmed the same, its missing ingredients go onto the week's shopping list and the session is decided",
            auth: .bearer, request: "CookSuggestProposalChoice", response: "CookSuggestSession", errors: [400, 403, 404, 409],
            path: [id]
        ),
        .init(
            Routes.leaveCookSuggest, "The participant leaves (their card ends); when nobody is left, the session is cancelled", auth: .bearer,
            request: "CookSuggestStep", response: "CookSuggestSession", errors: [400, 403, 404, 409], path: [id], bodyRequired: false
        ),
        .init(
            Routes.cancelCookSuggest, "Cancel the session: every card ends", auth: .bearer, request: "CookSuggestStep",
            response: "CookSuggestSession", errors: [400, 403, 404, 409], path: [id], bodyRequired: false
        ),
    ]

    static let schemas: [String: JSONValue] = [
        "CreateCookSuggestSession": object(
            ["date": CookSuggestInput.date.schema, "with_user_id": CommonFields.userID.schema, "by": CommonFields.by.schema], required: []),
        "CookSuggestStep": object(["by": CommonFields.by.schema], required: []),
        "CookSuggestProposalChoice": object(
            ["proposal_id": CookSuggestInput.proposalID.schema, "by": CommonFields.by.schema], required: ["proposal_id"]),
        "CookSuggestAnswers": object(
            [
                "maxMinutes": CookSuggestInput.maxMinutes.schema, "diet": strings(Recipe.dietTags),
                "moods": strings(Recipe.moodTags),
                "useUp": ["type": "array", "maxItems": .int(CookSuggestInput.useUpCount), "items": CookSuggestInput.useUp.schema],
                "servings": CookSuggestInput.servings.schema, "by": CommonFields.by.schema,
            ], required: []),
        "CookSuggestProposal": object(
            [
                "id": string, "title": string, "minutes": integer, "score": ["type": "number"],
                "reasons": ["type": "array", "items": string],
                "ingredients": ["type": "array", "items": object(["name": string, "amount": ["type": "number"], "unit": string])],
            ], required: ["id", "title", "minutes", "score", "reasons", "ingredients"]),
        "CookSuggestSession": object(
            [
                "id": string, "rev": integer, "unchanged": boolean,
                "state": ["type": "string", "enum": .array(CookSuggestState.allCases.map { JSONValue.string($0.rawValue) })],
                "date": string, "solo": boolean, "initiatorId": integer, "partnerId": integer,
                "participants": [
                    "type": "array",
                    "items": object(
                        [
                            "userId": integer, "name": string, "avatarTint": string, "emoji": string, "role": string, "joined": boolean,
                            "present": boolean, "ready": boolean, "answers": ref("CookSuggestAnswers"), "pick": nullableString,
                            "confirmed": nullableString,
                        ], required: ["userId", "name", "avatarTint", "emoji", "role", "joined", "present", "ready", "answers"]),
                ],
                "proposals": ["type": "array", "items": ref("CookSuggestProposal")], "decided": ref("CookSuggestProposal"),
                "card": ["type": "object", "description": "the caller's card (CookSuggestActivityAttributes.ContentState)"],
                "contextKey": string, "expiresAt": dateTime, "created": boolean,
            ], required: ["id", "rev", "unchanged"]),
    ]
}
