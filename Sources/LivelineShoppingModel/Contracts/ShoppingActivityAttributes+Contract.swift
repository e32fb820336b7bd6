import Foundation
import LivelineModel

extension ShoppingActivityAttributes: LiveActivityContract {
    public static let typeName = "ShoppingActivityAttributes"
    public static let version = 1

    public static let schema = ContractSchema(
        attributes: [
            ContractField("week", .string, "ISO date of the Monday of the shopping week, e.g. \"2026-01-05\"")
        ],
        contentState: [
            ContractField("open", .int, "open (not yet checked off) items of the week"),
            ContractField("done", .int, "checked-off items"),
            ContractField("total", .int, "open + done"),
            ContractField("estEur", .double, "estimated cost of the open items that have a price (euros)"),
            ContractField("estPriced", .int, "how many open items have a price"),
            ContractField("lastItem", .string, optional: true, "label of the item of the last tracked action"),
            ContractField("lastActorUserId", .int, optional: true, "user id of who acted last"),
            ContractField("lastActorName", .string, optional: true, "that user's display name"),
            ContractField("lastActorAvatarTint", .string, optional: true, "that user's colour name, e.g. \"azure\""),
            ContractField("lastActorEmoji", .string, optional: true, "that user's emoji"),
            ContractField("lastEventText", .string, optional: true, "the story line, e.g. \"Dennis packed Milk\""),
            ContractField("updatedAt", .string, optional: true, "time of the last tracked action, \"YYYY-MM-DD HH:MM:SS\" UTC"),
            ContractField(
                "nextOpen",
                .array(
                    .object(
                        name: "OpenItem",
                        fields: [
                            ContractField("id", .int, "item id"),
                            ContractField("label", .string, "item label"),
                        ])), "the next open items (at most 3, list order)"),
            ContractField(
                "activeShoppers",
                .array(
                    .object(
                        name: "Shopper",
                        fields: [
                            ContractField("name", .string, "display name"),
                            ContractField("avatarTint", .string, "colour name"),
                            ContractField("userId", .int, "user id"),
                        ])), "who is in the shop right now"),
            ContractField("ended", .bool, optional: true, "true on the final state; else null"),
            ContractField("rev", .int, "the week's monotone revision"),
        ]
    )

    /// The attributes of the `docs/contracts.md` example.
    public static let example = ShoppingActivityAttributes(week: "2026-01-05")

    /// The content state of the `docs/contracts.md` example.
    public static let exampleContentState = ContentState(
        open: 7, done: 2, total: 9, estEur: 14.30, estPriced: 6,
        lastItem: "Milch", lastActorUserId: 1, lastActorName: "Dennis", lastActorAvatarTint: "azure",
        lastActorEmoji: "🐟", lastEventText: "Dennis hat Milch eingepackt", updatedAt: "2026-01-05 00:46:40",
        nextOpen: [OpenItem(id: 42, label: "Bananen"), OpenItem(id: 43, label: "Hafermilch")],
        activeShoppers: [Shopper(name: "Jaqueline", avatarTint: "coral", userId: 2)],
        ended: nil, rev: 31
    )

    /// The context key: `shopping:{householdID}:{week}` (`docs/contracts.md`).
    public static func contextKey(of attributes: ShoppingActivityAttributes, userID: Int, householdID: Int) -> String? {
        "shopping:\(householdID):\(attributes.week)"
    }
}
