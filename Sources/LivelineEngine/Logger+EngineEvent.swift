import LivelineLog

extension Logger {
    /// Writes `event` as one line (unless below the logger's level).
    func record(_ event: EngineEvent) {
        guard isEnabled(event.level) else { return }
        log(event.level, event.name.rawValue, event.fields)
    }
}
