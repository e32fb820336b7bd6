import Foundation
import LivelineModel
import LivelineStore

/// The tokens of a whole fan-out, read after the render committed, a page at a time (by id,
/// environment after environment), so the first pushes go out while the rest are read
/// (docs/engine.md, "Fan-out for a sync").
struct TokenPages: Sendable {
    let contextKey: String
    let householdID: HouseholdID?
    /// With each token, its count of the budget's ledger since then (nil: not material, no counts).
    let ledgerSince: Date?
    /// The environments whose tokens are not all read yet, the one being read first.
    var environments: [PushEnvironment]
    /// The render's priorities and notes, for the tokens read.
    var priorities: PushPriorities
    /// The last token read in `environments.first`.
    var after: PushTokenID? = nil
}
