extension TripLiveActivityAttributes {
    /// Material: the phase changed, the delay changed by a minute or more, or the stop changed
    /// (`docs/engine.md`, "Budgets and priority"). Remaining time, progress and occupancy go quietly.
    public static func materialChange(from old: ContentState, to new: ContentState) -> String? {
        if new.phase != old.phase { return "phase \(old.phase.rawValue) → \(new.phase.rawValue)" }
        if abs(new.delay - old.delay) >= 1 { return "delay \(old.delay) → \(new.delay) min" }
        if new.currentStop != old.currentStop || new.nextStop != old.nextStop { return "stop \(old.currentStop) → \(new.currentStop)" }
        return nil
    }
}
