import Foundation

/// Writes structured events as JSON lines, in the access log's format and to a ``LogSink``:
/// `{"ts":1712345678.123,"level":"warning","event":"deadLetter",…}` — the time in UNIX seconds,
/// the level, the event's name, then its fields (dotted keys, e.g. `context.key`, `apns.id`).
///
/// A library is given its logger (it never makes one): the application builds it from its
/// configuration and passes it down; tests pass ``discarding`` or one over
/// ``LogSink/inMemory()``. Lines below ``level`` cost one comparison.
public struct Logger: Sendable {
    /// The least level written.
    public var level: LogLevel
    private let sink: LogSink
    private let clock: @Sendable () -> Date

    public init(sink: LogSink, level: LogLevel = .info, clock: @escaping @Sendable () -> Date = { Date() }) {
        self.sink = sink
        self.level = level
        self.clock = clock
    }

    /// A logger that writes nothing.
    public static var discarding: Logger { Logger(sink: .discarding(), level: .error) }

    /// Whether a line at `level` would be written.
    public func isEnabled(_ level: LogLevel) -> Bool { level >= self.level }

    /// Writes one line for `event` at `level` with `fields` in their order (unless below ``level``).
    public func log(_ level: LogLevel, _ event: String, _ fields: [(key: String, value: LogValue)] = []) {
        guard isEnabled(level) else { return }
        var line = JSONLine()
        line.add("ts", clock().timeIntervalSince1970)
        line.add("level", level.rawValue)
        line.add("event", event)
        for (key, value) in fields {
            switch value {
            case .string(let text): line.add(key, text)
            case .int(let number): line.add(key, number)
            case .double(let number): line.add(key, number)
            case .bool(let flag): line.add(key, flag)
            }
        }
        sink.write(line)
    }

    public func debug(_ event: String, _ fields: [(key: String, value: LogValue)] = []) { log(.debug, event, fields) }
    public func info(_ event: String, _ fields: [(key: String, value: LogValue)] = []) { log(.info, event, fields) }
    public func warning(_ event: String, _ fields: [(key: String, value: LogValue)] = []) { log(.warning, event, fields) }
    public func error(_ event: String, _ fields: [(key: String, value: LogValue)] = []) { log(.error, event, fields) }

    /// Writes out what the sink buffered (before the process exits, or a test reads the file).
    public func flush() { sink.flush() }
}
