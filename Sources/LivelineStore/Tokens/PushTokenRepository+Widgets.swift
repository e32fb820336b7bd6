import Foundation
import LivelineModel

extension PushTokenRepository {
    /// The household's active `widgets` tokens in id order, each row held to the end of the
    /// transaction on PostgreSQL (`FOR UPDATE`), so two writes pace one device's widget pushes one
    /// after the other (`docs/engine.md`, "Widget pushes"); SQLite's writes are one at a time.
    public func widgetTokens(householdID: HouseholdID, in transaction: any SQLTransaction) throws -> [WidgetTokenPacing] {
        let sql = """
            SELECT id, device_id, widget_kinds, widget_push_at FROM push_tokens
            WHERE household_id = $1 AND kind = 'widgets' AND status = 'active' ORDER BY id
            """
        return try transaction.query(sql + (database.dialect == .postgres ? " FOR UPDATE" : ""), [SQLValue(householdID)]).map { row in
            WidgetTokenPacing(
                id: PushTokenID(try row.int("id")), deviceID: try row.string("device_id"),
                kinds: Set(try row.optionalString("widget_kinds").map(PushTokenRecord.widgetKinds(json:)) ?? []),
                lastPushAt: try row.optionalDate("widget_push_at"))
        }
    }

    /// Records that the newest widget push of the token `id` is due at `dueAt`, a time in whole
    /// milliseconds kept exactly (rounded, not rounded down: it names the push's outbox row).
    public func setWidgetPushAt(id: PushTokenID, _ dueAt: Date, in transaction: any SQLTransaction) throws {
        let milliseconds = Int64((dueAt.timeIntervalSince1970 * 1000).rounded())
        try transaction.execute("UPDATE push_tokens SET widget_push_at = $2 WHERE id = $1", [SQLValue(id), .integer(milliseconds)])
    }
}
