import Foundation
import LivelineAPI
import LivelineEngine
import LivelineHTTP
import LivelineModel
import LivelineShoppingModel
import LivelineStore

/// The household's weekly shopping list (docs/features/shopping.md), on the paths of the shopping
/// app that came before Liveline, so it works unchanged. Every route needs the bearer token of a household member; items of
/// another household are a 404; `by` must be a member of the caller's household (else 403).
struct ShoppingHandlers: Sendable {
    let auth: Authenticator
    let engine: Engine
    let domain: ShoppingDomain
    let clock: @Sendable () -> Date

    init(context: FeatureContext, domain: ShoppingDomain) {
        auth = context.auth
        engine = context.engine
        clock = context.clock
        self.domain = domain
    }

    /// Adds the shopping routes in the order of the API's table (docs/features/shopping.md, "API").
    func addRoutes(to router: inout Router) {
        addListRoutes(to: &router)
        addItemRoutes(to: &router)
        addSessionRoutes(to: &router)
    }

    /// Adds the routes of a week's list: reading it (with the `since_rev` shortcut) and adding an
    /// item to it (docs/features/shopping.md, "API").
    func addListRoutes(to router: inout Router) {
        router.add(Routes.shoppingWeek) { request in
            let caller = try auth.caller(of: request)
            let week = try Self.week(of: request)
            let sinceRev = try CommonFields.sinceRev.integerQuery(of: request)
            switch try domain.read(
                week: week, householdID: caller.householdID, sinceRev: sinceRev, snapshot: ShoppingSnapshotSource(domain: domain, clock: clock))
            {
            case .unchanged(let rev):
                // The answer to every push-woken pull: written directly (the same bytes the
                // encoder writes for ShoppingWeekResponse, keys sorted; a test compares them).
                return .jsonBytes(Self.unchangedBody(week: week, rev: rev))
            case .changed(let rev, let items, let state):
                return try .json(ShoppingWeekResponse(week: week.monday, rev: rev, unchanged: false, items: items, state: state))
            }
        }
        router.add(Routes.addShoppingItem) { request in
            let caller = try auth.caller(of: request)
            let week = try Self.week(of: request)
            let body = try request.decode(AddShoppingItemRequest.self)
            try ShoppingFields.label.text(body.label)
            let label = try Self.checked { () throws(ShoppingInputError) in try ShoppingInput.label(body.label) }
            let price = try Self.checked { () throws(ShoppingInputError) in
                try body.price.map { v throws(ShoppingInputError) in try ShoppingInput.price(v) }
            }
            let actor = try actor(body.by, caller: caller)
            let (item, rev) = try domain.addItem(
                week: week, householdID: caller.householdID, actor: actor.id, label: label, price: price, now: clock())
            return try .json(ShoppingItemResponse(item: item, rev: rev), status: 201)
        }
    }

    /// Adds the routes of one item, by its id: changing it and removing it (docs/features/shopping.md,
    /// "API").
    func addItemRoutes(to router: inout Router) {
        router.add(Routes.updateShoppingItem) { request in
            let caller = try auth.caller(of: request)
            let id = try Self.itemID(of: request)
            let body = try request.decode(UpdateShoppingItemRequest.self)
            _ = try body.label.map { try ShoppingFields.label.text($0) }
            let label = try Self.checked { () throws(ShoppingInputError) in
                try body.label.map { v throws(ShoppingInputError) in try ShoppingInput.label(v) }
            }
            let price: Double?? = try Self.checked { () throws(ShoppingInputError) -> Double?? in
                switch body.price {
                case .some(.some(let value)): .some(try ShoppingInput.price(value))
                case .some(.none): .some(nil)
                case .none: nil
                }
            }
            let position = try Self.checked { () throws(ShoppingInputError) in
                try body.position.map { v throws(ShoppingInputError) in try ShoppingInput.position(v) }
            }
            guard body.done != nil || label != nil || price != nil || position != nil else {
                throw HTTPError.badRequest("nothing to change: give done, label, price or position", field: "body")
            }
            let actor = try actor(body.by, caller: caller)
            guard
                let (item, rev) = try domain.updateItem(
                    id: id, householdID: caller.householdID, actor: actor.id, done: body.done, label: label, price: price, position: position,
                    now: clock()
                )
            else { throw HTTPError.notFound("there is no item \(id) in your household's lists") }
            return try .json(ShoppingItemResponse(item: item, rev: rev))
        }
        router.add(Routes.removeShoppingItem) { request in
            let caller = try auth.caller(of: request)
            let id = try Self.itemID(of: request)
            let by = try CommonFields.by.integerQuery(of: request)
            let actor = try actor(by, caller: caller)
            guard let rev = try domain.removeItem(id: id, householdID: caller.householdID, actor: actor.id, now: clock()) else {
                throw HTTPError.notFound("there is no item \(id) in your household's lists")
            }
            return try .json(RemoveShoppingItemResponse(id: id, removed: true, rev: rev))
        }
    }

    /// Adds the routes of a shopping session: starting it, keeping the shopper present and ending it
    /// (docs/features/shopping.md, "Sessions and presence").
    func addSessionRoutes(to router: inout Router) {
        router.add(Routes.startShopping) { request in
            let caller = try auth.caller(of: request)
            let week = try Self.week(of: request)
            let actor = try actor(try Self.sessionBody(request).by, caller: caller)
            return try .json(try startShopping(week: week, actor: actor, caller: caller))
        }
        router.add(Routes.shoppingHeartbeat) { request in
            let caller = try auth.caller(of: request)
            let week = try Self.week(of: request)
            let actor = try actor(try Self.sessionBody(request).by, caller: caller)
            let active = try domain.heartbeat(week: week, householdID: caller.householdID, actor: actor.id, now: clock())
            return try .json(ShoppingHeartbeatResponse(week: week.monday, active: active))
        }
        router.add(Routes.endShopping) { request in
            let caller = try auth.caller(of: request)
            let week = try Self.week(of: request)
            let actor = try actor(try Self.sessionBody(request).by, caller: caller)
            if let (rev, finished) = try domain.endSession(week: week, householdID: caller.householdID, actor: actor.id, now: clock()) {
                return try .json(ShoppingSessionEndResponse(week: week.monday, rev: rev, left: true, finished: finished))
            }
            let rev = try engine.revision(key: week.contextKey(householdID: caller.householdID)) ?? 0
            return try .json(ShoppingSessionEndResponse(week: week.monday, rev: rev, left: false, finished: false))
        }
    }

    /// `actor` starts shopping: the session commits (a change of the card), then the card is
    /// started by push-to-start on the other members' devices that do not show it yet; they get
    /// update tokens. The week's broadcast channel is created with the first start (without one,
    /// tokens only) and is what the starter's own app follows when it starts its card itself.
    func startShopping(week: ShoppingWeek, actor: UserRecord, caller: Caller) throws -> ShoppingSessionResponse {
        let (rev, _) = try domain.startSession(week: week, householdID: caller.householdID, actor: actor.id, now: clock())
        let key = week.contextKey(householdID: caller.householdID)
        // Not the actor, and not the caller either: with `by` the calling device is shared, and its
        // app starts its own card.
        let others = try engine.members(householdID: caller.householdID).map(\.id)
            .filter { $0 != actor.id && $0 != caller.userID }
        let english = actor.locale == "en"
        let alert = LiveActivityAlert(
            title: .plain(english ? "\(actor.name) is shopping" : "\(actor.name) kauft ein"),
            body: .plain(english ? "Week of \(week.monday): add what you need" : "Woche vom \(week.monday): schreib dazu, was fehlt")
        )
        let result: StartResult
        do {
            result = try engine.startActivities(
                contextKey: key, userIDs: others, deviceIDs: [], alert: alert, useChannel: true, startsFollowChannel: false
            )
        } catch let error as EngineError where error.code == .payloadRefused {
            // The start payload is the server's, built from the week's card: the request names
            // no field of it, so the refusal names the week, as before the seam.
            throw HTTPError.contractViolation(error.message, field: "week")
        }
        let shoppers = try ShoppingSnapshotSource(domain: domain, clock: clock).shoppers(week: week, householdID: caller.householdID)
        return ShoppingSessionResponse(
            week: week.monday, rev: rev, contextKey: key, activeShoppers: shoppers, channelId: result.channelID,
            channelFallback: result.channelFallback,
            starts: result.outcomes.map { .init(outcome: $0.kind.rawValue, deviceId: $0.deviceID, userId: $0.userID?.rawValue, reason: $0.reason) }
        )
    }

    /// Who acts: `by` when given (a member of the caller's household, else 403), else the caller.
    func actor(_ by: Int?, caller: Caller) throws -> UserRecord {
        try caller.actor(by.map { try CommonFields.by.integer($0) }, engine: engine)
    }

    /// `{"rev":N,"unchanged":true,"week":"YYYY-MM-DD"}`.
    static func unchangedBody(week: ShoppingWeek, rev: Int) -> [UInt8] {
        Array(#"{"rev":\#(rev),"unchanged":true,"week":"\#(week.monday)"}"#.utf8)
    }

    // MARK: Input

    /// The `{week}` parameter: the ISO date of a Monday (`2026-01-05`), else a 400.
    static func week(of request: HTTPRequest) throws -> ShoppingWeek {
        guard let week = ShoppingWeek(try ShoppingFields.week.text(request.parameter("week"))) else {
            throw ShoppingFields.week.refusal(try request.parameter("week"))
        }
        return week
    }

    /// The `{id}` parameter of an item: a whole number.
    static func itemID(of request: HTTPRequest) throws -> Int {
        try ShoppingFields.itemID.integer(text: request.parameter("id"))
    }

    /// The body of a session route; an empty one is `{}`.
    static func sessionBody(_ request: HTTPRequest) throws -> ShoppingSessionRequest {
        request.body.isEmpty ? ShoppingSessionRequest() : try request.decode(ShoppingSessionRequest.self)
    }

    /// Runs an input check, turning its refusal into a 400 naming the field.
    static func checked<T>(_ check: () throws(ShoppingInputError) -> T) throws -> T {
        do {
            return try check()
        } catch {
            throw HTTPError.badRequest(error.message, field: error.field)
        }
    }
}
