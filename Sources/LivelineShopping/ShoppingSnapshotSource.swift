import Foundation
import LivelineEngine
import LivelineModel
import LivelineShoppingModel
import LivelineStore

/// The card of a household's week (`docs/features/shopping.md`, "The card"), built from one read: counts,
/// the estimate of the open items that have a price, the story of the latest tracked action in
/// the household's language, the next three open items and who is in the shop. Actor, shoppers
/// and `updatedAt` come from the same transaction, never a mix of old and new.
public struct ShoppingSnapshotSource: SnapshotSource {
    let domain: ShoppingDomain
    let clock: @Sendable () -> Date

    public init(domain: ShoppingDomain, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.domain = domain
        self.clock = clock
    }

    public func contentState(of context: ContextRecord, in transaction: any SQLTransaction) throws -> JSONValue {
        let state = try self.state(of: context, in: transaction)
        return try JSONValue(json: JSONEncoder().encode(state))
    }

    /// The typed content state (its `rev` and `ended` as the context has them).
    public func state(of context: ContextRecord, in transaction: any SQLTransaction) throws -> ShoppingActivityAttributes.ContentState {
        guard let householdID = context.householdID, let weekText = context.key.split(separator: ":").last.map(String.init),
            let week = ShoppingWeek(weekText)
        else {
            throw EngineError("\(context.key) is not a shopping context (shopping:{householdId}:{week})")
        }
        return try state(week: week, householdID: householdID, rev: context.rev, ended: context.state == .ended, in: transaction)
    }

    /// The week's content state at `rev`, from the transaction's one snapshot.
    public func state(
        week: ShoppingWeek, householdID: HouseholdID, rev: Int, ended: Bool, items known: [ShoppingListItem]? = nil,
        in transaction: any SQLTransaction
    ) throws -> ShoppingActivityAttributes.ContentState {
        let items = try known ?? domain.items(week: week, householdID: householdID, in: transaction)
        let open = items.filter { !$0.done }
        let priced = open.compactMap(\.price)
        let locale = try transaction.queryOne("SELECT locale FROM households WHERE id = $1", [SQLValue(householdID)])?.string("locale") ?? "de"

        var state = ShoppingActivityAttributes.ContentState(
            open: open.count, done: items.count - open.count, total: items.count,
            estEur: (priced.reduce(0, +) * 100).rounded() / 100, estPriced: priced.count,
            nextOpen: open.prefix(3).map { OpenItem(id: $0.id, label: $0.label) },
            // A finished trip has nobody in the shop (also when the engine ended it at its deadline).
            activeShoppers: ended ? [] : try shoppers(week: week, householdID: householdID, in: transaction),
            ended: ended ? true : nil, rev: rev
        )
        if let event = try transaction.queryOne(
            """
            SELECT e.action, e.item_label, e.at, u.id AS user_id, u.name, u.avatar_tint, u.emoji
            FROM shopping_events e LEFT JOIN users u ON u.id = e.actor_id
            WHERE e.household_id = $1 AND e.week = $2 ORDER BY e.id DESC LIMIT 1
            """,
            [SQLValue(householdID), .text(week.monday)]
        ), let action = ShoppingAction(rawValue: try event.string("action")) {
            let name = try event.optionalString("name")
            let label = try event.string("item_label")
            state.lastItem = label
            state.lastActorUserId = try event.optionalInt("user_id")
            state.lastActorName = name
            state.lastActorAvatarTint = try event.optionalString("avatar_tint")
            state.lastActorEmoji = try event.optionalString("emoji")
            state.lastEventText = Self.story(action, name: name ?? "?", item: label, locale: locale)
            state.updatedAt = Self.timestamp(try event.date("at"))
        }
        return state
    }

    /// Who is in the shop now, by session start.
    public func shoppers(week: ShoppingWeek, householdID: HouseholdID) throws -> [Shopper] {
        try domain.door.read { read in try shoppers(week: week, householdID: householdID, in: read.sql) }
    }

    func shoppers(week: ShoppingWeek, householdID: HouseholdID, in transaction: any SQLTransaction) throws -> [Shopper] {
        try transaction.query(
            """
            SELECT u.id, u.name, u.avatar_tint FROM shopping_sessions s JOIN users u ON u.id = s.user_id
            WHERE s.household_id = $1 AND s.week = $2 AND s.ended_at IS NULL AND s.heartbeat_at >= $3
            ORDER BY s.started_at, s.id
            """,
            [SQLValue(householdID), .text(week.monday), SQLValue(clock().addingTimeInterval(-domain.presenceTimeout))]
        ).map { Shopper(name: try $0.string("name"), avatarTint: try $0.string("avatar_tint"), userId: try $0.int("id")) }
    }

    /// The story line (`docs/features/shopping.md`, the table of actions), in `de` or `en`.
    static func story(_ action: ShoppingAction, name: String, item: String, locale: String) -> String {
        let english = locale == "en"
        switch action {
        case .checked: return english ? "\(name) packed \(item)" : "\(name) hat \(item) eingepackt"
        case .added: return english ? "\(name) added \(item)" : "\(name) hat \(item) hinzugefügt"
        case .unchecked: return english ? "\(name) put \(item) back" : "\(name) hat \(item) zurückgelegt"
        case .removed: return english ? "\(name) removed \(item)" : "\(name) hat \(item) entfernt"
        case .edited: return english ? "\(name) changed \(item)" : "\(name) hat \(item) geändert"
        }
    }

    /// `YYYY-MM-DD HH:MM:SS` in UTC.
    static func timestamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: date)
    }
}
