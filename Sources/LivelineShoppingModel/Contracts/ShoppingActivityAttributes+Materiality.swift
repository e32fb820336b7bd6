import LivelineModel

extension ShoppingActivityAttributes {
    /// Material (`docs/features/shopping.md`, "Push triggers"): an item added, checked off, put back or removed,
    /// a shopper joining or leaving, or the trip finishing. Edits of label, price or position and
    /// the story line alone go quietly.
    public static func materialChange(from old: ContentState, to new: ContentState) -> String? {
        if old.ended != new.ended { return "the list ended" }
        if new.done != old.done { return "checked off: done \(old.done) → \(new.done)" }
        if new.total != old.total { return "items added or removed: total \(old.total) → \(new.total)" }
        if new.open != old.open { return "open \(old.open) → \(new.open)" }
        let before = old.activeShoppers.map(\.userId), after = new.activeShoppers.map(\.userId)
        if before != after {
            let joined = after.filter { !before.contains($0) }, left = before.filter { !after.contains($0) }
            var parts: [String] = []
            if !joined.isEmpty { parts.append("shopper \(joined.map(String.init).joined(separator: ", ")) joined") }
            if !left.isEmpty { parts.append("shopper \(left.map(String.init).joined(separator: ", ")) left") }
            return parts.isEmpty ? "shoppers reordered" : parts.joined(separator: "; ")
        }
        return nil
    }
}
