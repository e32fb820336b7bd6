import LivelineModel

extension TripLiveActivityAttributes {
    /// Material: the phase changed, or the delay changed by a minute or more (`docs/engine.md`,
    /// "Budgets and priority"; `docs/features/transit.md`, "What is pushed"). Stops, remaining
    /// time, progress and occupancy go quietly.
    public static func materialChange(from old: ContentState, to new: ContentState) -> String? {
        if new.phase != old.phase { return "phase \(old.phase.rawValue) → \(new.phase.rawValue)" }
        // Whole minutes: any difference is a minute or more (no subtraction, which overflows at the ends of Int).
        if new.delay != old.delay { return "delay \(old.delay) → \(new.delay) min" }
        return nil
    }
}
