import Foundation
import LivelineModel

extension CookSuggestActivityAttributes: LiveActivityContract {
    public static let typeName = "CookSuggestActivityAttributes"
    public static let version = 1

    public static let schema = ContractSchema(
        attributes: [
            ContractField("sessionId", .string, "the session, e.g. \"cs_abc\""),
            ContractField("date", .string, "the day being planned, \"YYYY-MM-DD\""),
            ContractField("partnerName", .string, optional: true, "the other participant, from the receiver's point of view"),
            ContractField("partnerTint", .string, optional: true, "partner's colour"),
            ContractField("partnerEmoji", .string, optional: true, "partner's emoji"),
        ],
        contentState: [
            ContractField("state", .string, "answering, generating, proposed, finalizing, decided, cancelled"),
            ContractField("statusLabel", .string, "one line for the card, from the receiver's point of view"),
            ContractField("deepLinkStep", .string, optional: true, "wizard step to open on tap: answers, waiting, proposals, confirm, result"),
            ContractField("proposalCount", .int, "number of proposals (0 before proposed)"),
            ContractField("partnerPickTitle", .string, optional: true, "title of the proposal the partner picked"),
            ContractField("partnerReady", .bool, "the partner finished their answers"),
            ContractField("decidedTitle", .string, optional: true, "the agreed dish, once decided"),
            ContractField("updatedAt", .string, optional: true, "\"YYYY-MM-DD HH:MM:SS\" UTC"),
            ContractField("rev", .int, "the session's monotone revision"),
            ContractField("ended", .bool, optional: true, "true on decided/cancelled (sent with event end)"),
        ]
    )

    /// The attributes of the `docs/contracts.md` example.
    public static let example = CookSuggestActivityAttributes(
        sessionId: "cs_abc", date: "2026-06-18", partnerName: "Jaqueline", partnerTint: "coral", partnerEmoji: "🐠"
    )

    /// The content state of the `docs/contracts.md` example.
    public static let exampleContentState = ContentState(
        state: "proposed", statusLabel: "3 Vorschläge sind da", deepLinkStep: "proposals", proposalCount: 3,
        partnerPickTitle: nil, partnerReady: true, decidedTitle: nil, updatedAt: "2026-06-18 19:12:03",
        rev: 7, ended: nil
    )

    /// The context key: `cooksuggest:{sessionId}:{userID}` (`docs/contracts.md`).
    public static func contextKey(of attributes: CookSuggestActivityAttributes, userID: Int, householdID: Int) -> String? {
        "cooksuggest:\(attributes.sessionId):\(userID)"
    }
}
