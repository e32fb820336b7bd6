extension ShoppingActivityAttributes {
    /// Material: an item was checked off or added (`engine.md`, "Budgets and priority"), or the
    /// list ended. Prices, the story line and who is shopping go quietly.
    public static func materialChange(from old: ContentState, to new: ContentState) -> String? {
        if old.ended != new.ended { return "the list ended" }
        if new.done != old.done { return "checked off: done \(old.done) → \(new.done)" }
        if new.total != old.total { return "items added or removed: total \(old.total) → \(new.total)" }
        if new.open != old.open { return "open \(old.open) → \(new.open)" }
        return nil
    }
}
