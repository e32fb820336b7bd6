import Foundation
import LivelineLog
import LivelineModel
import LivelinePush
import LivelinePushWire

/// Everything `liveline serve` can be told, with the embedded defaults: port 8080, data in
/// `./liveline-data`, SQLite, the APNs sandbox. Each setting comes from a command-line option,
/// else from its environment variable, else from the default.
public struct ServerConfiguration: Sendable {
    /// IPv4 address to listen on (`--host`, `LIVELINE_HOST`); default every interface.
    public var host = "0.0.0.0"
    /// TCP port (`--port`, `LIVELINE_PORT`); 0 picks a free one.
    public var port = 8080
    /// Folder for the database and generated secrets (`--data`, `LIVELINE_DATA_DIR`).
    public var dataDirectory = URL(fileURLWithPath: "liveline-data")
    /// `LIVELINE_DATABASE_URL` (`--database-url`): a PostgreSQL database several instances share;
    /// nil: SQLite in the data folder.
    public var databaseURL: String?
    /// `LIVELINE_DATABASE_POOL`: PostgreSQL connections this instance opens at most.
    public var databasePool = 10
    /// The key of the server-to-server `/v1` API (`LIVELINE_ADMIN_KEY`); generated and stored in
    /// the data folder when unset.
    public var adminKey: String?
    /// Largest request body accepted (`LIVELINE_MAX_BODY_BYTES`), default 1 MiB.
    public var maxBodyBytes = 1 << 20
    /// HTTP worker threads (`LIVELINE_HTTP_THREADS`); default two per core, at least 4. A worker
    /// answers its requests one at a time and waits while a write commits, so with one per core
    /// the cores sat idle under writes (`docs/performance.md`, "Writes").
    public var httpThreads = max(4, 2 * ProcessInfo.processInfo.activeProcessorCount)
    /// Where the JSON access log goes (`LIVELINE_ACCESS_LOG`): `stdout`, `stderr` or `off`.
    public var accessLog = "stdout"
    /// The least level of the engine's events written (`LIVELINE_LOG_LEVEL`: `debug`, `info`,
    /// `warning` or `error`; default `info`). They are JSON lines in the access log's stream:
    /// standard output, or standard error with `LIVELINE_ACCESS_LOG=stderr`; `off` stops only the
    /// request lines, the events still go to standard output.
    public var logLevel = LogLevel.info
    /// Where the JSON lines go instead of standard output or error (a test's in-memory sink);
    /// nil: as ``accessLog`` says.
    public var logSink: LogSink?
    /// APNs environment assumed for tokens registered without one (`LIVELINE_APNS_ENVIRONMENT`).
    public var defaultPushEnvironment = PushEnvironment.sandbox
    /// Whether this instance sends what the outbox holds (`LIVELINE_DISPATCHER`, `on`/`off`). With
    /// `off` it only takes changes; another instance sharing the database sends them.
    public var dispatcherEnabled = true
    /// Backoff for pushes APNs asked to retry (5xx, 429, no answer) and how many sends before a
    /// target becomes a dead letter (`LIVELINE_PUSH_RETRY_DELAY_MS`, `LIVELINE_PUSH_MAX_ATTEMPTS`).
    public var pushRetry = RetryPolicy()
    /// Least time between two pushes of one context (`LIVELINE_PUSH_MIN_INTERVAL_MS`, default 1 s;
    /// 0 sends every change at once): changes meanwhile go out together.
    public var minimumPushInterval: TimeInterval = 1
    /// Priority-10 pushes per activity per hour (`LIVELINE_PRIORITY_BUDGET`, default 12), for
    /// devices with frequent updates allowed (`LIVELINE_PRIORITY_BUDGET_FREQUENT`, 36), and per
    /// activity type (`LIVELINE_PRIORITY_BUDGET_BY_TYPE`, e.g. `TripLiveActivityAttributes=20`).
    public var priorityBudget = 12
    public var frequentPriorityBudget = 36
    public var priorityBudgetByType: [String: Int] = [:]
    /// How long a quiet (not material) change waits after the last push (`LIVELINE_QUIET_DEBOUNCE_S`, 30).
    public var quietChangeDebounce: TimeInterval = 30
    /// Push-to-starts per device per hour (`LIVELINE_START_BUDGET`, 8).
    public var startBudget = 8
    /// How long a dispatcher holds a claimed outbox row before another may take it
    /// (`LIVELINE_OUTBOX_LEASE_S`, default 30): after a crash, rows in flight go out again then.
    public var outboxLease: TimeInterval = 30
    /// How long after a reconcile listed an orphan channel it is deleted (default 60 s; see
    /// `EngineConfiguration.orphanChannelGrace`).
    public var orphanChannelGrace: TimeInterval = 60
    /// How APNs is reached: Apple with a configured key, else the in-process sandbox.
    public var apns = APNSConfiguration()
    /// Web Push (README, "Web Push"): the VAPID key's PEM file (`LIVELINE_WEBPUSH_VAPID_KEY`;
    /// nil: generated once, kept in the data folder), the contact push services see
    /// (`LIVELINE_WEBPUSH_SUBJECT`, `mailto:` or `https:`; nothing is sent without it) and whether
    /// subscriptions may have `http://` endpoints on this machine (`LIVELINE_WEBPUSH_ALLOW_INSECURE=1`:
    /// local push services and tests).
    public var webPushKeyPath: String?
    public var webPushSubject: String?
    public var webPushAllowInsecure = false
    /// Failed authentications per client address and minute before that address is answered 429
    /// (`LIVELINE_AUTH_FAILURES_PER_MINUTE`; 0: no limit).
    public var authFailuresPerMinute = 30
    /// The address people reach this server at (`LIVELINE_PUBLIC_URL`, e.g.
    /// `https://liveline.example.com`): what `serve` prints for the dashboard; with https the
    /// dashboard's session cookies are `Secure`. Nil: the listening address.
    public var publicURL: URL?
    /// The environment the configuration was read from: features read their own settings in it.
    public var environment: [String: String] = [:]

    public init() {}

    /// The environment variables read, with what each sets (for `--help`).
    public static let environmentHelp: [(String, String)] = [
        ("LIVELINE_HOST", "address to listen on (default 0.0.0.0)"),
        ("LIVELINE_PORT", "port to listen on (default 8080; 0 picks a free port)"),
        ("LIVELINE_DATA_DIR", "data folder (default ./liveline-data)"),
        (
            "LIVELINE_DATABASE_URL",
            "postgresql://user:password@host:port/dbname: a PostgreSQL database several instances share (default: SQLite in the data folder)"
        ),
        ("LIVELINE_DATABASE_POOL", "PostgreSQL connections per instance (default 10)"),
        ("LIVELINE_ADMIN_KEY", "admin key for the /v1 API (default: generated once, kept in the data folder)"),
        (
            "LIVELINE_AUTH_FAILURES_PER_MINUTE",
            "failed authentications (bearer token, admin key, dashboard sign-in) per client address and minute before it gets 429 (default 30; 0: none)"
        ),
        ("LIVELINE_PUBLIC_URL", "http(s)://host[:port] people reach the server at (the dashboard's address; https makes its cookies Secure)"),
        ("LIVELINE_MAX_BODY_BYTES", "largest accepted request body (default 1048576)"),
        ("LIVELINE_HTTP_THREADS", "HTTP worker threads (default: two per core, at least 4)"),
        ("LIVELINE_ACCESS_LOG", "stdout, stderr or off (default stdout); the engine's events go there too (off: to stdout)"),
        ("LIVELINE_LOG_LEVEL", "engine events logged: debug (every push), info, warning or error (default info)"),
        ("LIVELINE_PUSH_RETRY_DELAY_MS", "first backoff before resending a push APNs asked to retry (default 1000; doubles, ±20 % jitter)"),
        ("LIVELINE_PUSH_MAX_ATTEMPTS", "sends of one push before it becomes a dead letter (default 8)"),
        ("LIVELINE_PUSH_MIN_INTERVAL_MS", "least time between two pushes of one context; changes meanwhile go together (default 1000)"),
        ("LIVELINE_PRIORITY_BUDGET", "priority-10 pushes per activity per hour (default 12); material changes beyond go at 5"),
        ("LIVELINE_PRIORITY_BUDGET_FREQUENT", "the same for devices that allow frequent updates (default 36)"),
        ("LIVELINE_PRIORITY_BUDGET_BY_TYPE", "per activity type, e.g. TripLiveActivityAttributes=20,ShoppingActivityAttributes=6"),
        ("LIVELINE_QUIET_DEBOUNCE_S", "a change that is not material waits this long after the last push, then goes at 5 (default 30)"),
        ("LIVELINE_START_BUDGET", "push-to-starts per device per hour (default 8)"),
        ("LIVELINE_OUTBOX_LEASE_S", "seconds a claimed outbox row stays with its dispatcher; after a crash it is sent again then (default 30)"),
        ("LIVELINE_DISPATCHER", "on or off (default on): off only takes changes; an instance sharing the database sends them"),
        ("LIVELINE_WEBPUSH_SUBJECT", "mailto: or https: contact in every VAPID token; required before the first web push"),
        ("LIVELINE_WEBPUSH_VAPID_KEY", "PEM file of the VAPID key (P-256) (default: generated once, kept in the data folder)"),
        ("LIVELINE_WEBPUSH_ALLOW_INSECURE", "1: accept http:// web push endpoints on this machine (local push services, tests)"),
    ]

    /// Reads the `LIVELINE_*` variables over the defaults. A malformed value is an error naming it.
    public static func fromEnvironment(_ environment: [String: String]) throws -> ServerConfiguration {
        var config = ServerConfiguration()
        config.environment = environment
        if let host = environment["LIVELINE_HOST"], !host.isEmpty { config.host = host }
        if let text = environment["LIVELINE_PORT"] { config.port = try integer(text, name: "LIVELINE_PORT", in: 0...65535) }
        if let path = environment["LIVELINE_DATA_DIR"], !path.isEmpty { config.dataDirectory = URL(fileURLWithPath: path) }
        if let url = environment["LIVELINE_DATABASE_URL"], !url.isEmpty { config.databaseURL = url }
        if let text = environment["LIVELINE_DATABASE_POOL"] {
            config.databasePool = try integer(text, name: "LIVELINE_DATABASE_POOL", in: 1...200)
        }
        if let key = environment["LIVELINE_ADMIN_KEY"], !key.isEmpty {
            guard key.count >= 16 else {
                throw ConfigurationError("LIVELINE_ADMIN_KEY must be at least 16 characters long")
            }
            config.adminKey = key
        }
        if let text = environment["LIVELINE_AUTH_FAILURES_PER_MINUTE"] {
            config.authFailuresPerMinute = try integer(text, name: "LIVELINE_AUTH_FAILURES_PER_MINUTE", in: 0...100_000)
        }
        if let text = environment["LIVELINE_PUBLIC_URL"], !text.isEmpty {
            guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil,
                url.query == nil, url.fragment == nil, url.path.isEmpty || url.path == "/"
            else {
                throw ConfigurationError(
                    "LIVELINE_PUBLIC_URL must be an http:// or https:// address without a path, such as https://liveline.example.com, not '\(text)' "
                        + "(the dashboard and the API are served from the root)")
            }
            config.publicURL = url
        }
        if let text = environment["LIVELINE_MAX_BODY_BYTES"] {
            config.maxBodyBytes = try integer(text, name: "LIVELINE_MAX_BODY_BYTES", in: 1024...(64 << 20))
        }
        if let text = environment["LIVELINE_HTTP_THREADS"] {
            config.httpThreads = try integer(text, name: "LIVELINE_HTTP_THREADS", in: 1...256)
        }
        if let text = environment["LIVELINE_ACCESS_LOG"] {
            guard ["stdout", "stderr", "off"].contains(text) else {
                throw ConfigurationError("LIVELINE_ACCESS_LOG must be stdout, stderr or off, not '\(text)'")
            }
            config.accessLog = text
        }
        if let text = environment["LIVELINE_LOG_LEVEL"] {
            guard let level = LogLevel(rawValue: text) else {
                throw ConfigurationError("LIVELINE_LOG_LEVEL must be debug, info, warning or error, not '\(text)'")
            }
            config.logLevel = level
        }
        if let text = environment["LIVELINE_PUSH_RETRY_DELAY_MS"] {
            config.pushRetry.initialDelay = .milliseconds(try integer(text, name: "LIVELINE_PUSH_RETRY_DELAY_MS", in: 1...600_000))
        }
        if let text = environment["LIVELINE_PUSH_MAX_ATTEMPTS"] {
            config.pushRetry.maximumAttempts = try integer(text, name: "LIVELINE_PUSH_MAX_ATTEMPTS", in: 1...100)
        }
        if let text = environment["LIVELINE_PUSH_MIN_INTERVAL_MS"] {
            config.minimumPushInterval = Double(try integer(text, name: "LIVELINE_PUSH_MIN_INTERVAL_MS", in: 0...3_600_000)) / 1000
        }
        if let text = environment["LIVELINE_PRIORITY_BUDGET"] {
            config.priorityBudget = try integer(text, name: "LIVELINE_PRIORITY_BUDGET", in: 0...10_000)
        }
        if let text = environment["LIVELINE_PRIORITY_BUDGET_FREQUENT"] {
            config.frequentPriorityBudget = try integer(text, name: "LIVELINE_PRIORITY_BUDGET_FREQUENT", in: 0...10_000)
        }
        if let text = environment["LIVELINE_PRIORITY_BUDGET_BY_TYPE"], !text.isEmpty {
            for pair in text.split(separator: ",") {
                let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2, !parts[0].isEmpty, let value = Int(parts[1]), (0...10_000).contains(value) else {
                    throw ConfigurationError("LIVELINE_PRIORITY_BUDGET_BY_TYPE must be Type=number pairs separated by commas, not '\(pair)'")
                }
                config.priorityBudgetByType[parts[0]] = value
            }
        }
        if let text = environment["LIVELINE_QUIET_DEBOUNCE_S"] {
            config.quietChangeDebounce = Double(try integer(text, name: "LIVELINE_QUIET_DEBOUNCE_S", in: 0...86_400))
        }
        if let text = environment["LIVELINE_START_BUDGET"] {
            config.startBudget = try integer(text, name: "LIVELINE_START_BUDGET", in: 1...1000)
        }
        if let text = environment["LIVELINE_OUTBOX_LEASE_S"] {
            config.outboxLease = Double(try integer(text, name: "LIVELINE_OUTBOX_LEASE_S", in: 2...3600))
        }
        if let text = environment["LIVELINE_DISPATCHER"] {
            guard ["on", "off"].contains(text) else {
                throw ConfigurationError("LIVELINE_DISPATCHER must be on or off, not '\(text)'")
            }
            config.dispatcherEnabled = text == "on"
        }
        if let text = environment["LIVELINE_APNS_ENVIRONMENT"] {
            guard let value = PushEnvironment(rawValue: text) else {
                throw ConfigurationError("LIVELINE_APNS_ENVIRONMENT must be sandbox or production, not '\(text)'")
            }
            config.defaultPushEnvironment = value
        }
        if let path = environment["LIVELINE_WEBPUSH_VAPID_KEY"], !path.isEmpty { config.webPushKeyPath = path }
        if let subject = environment["LIVELINE_WEBPUSH_SUBJECT"], !subject.isEmpty {
            let lowered = subject.lowercased()
            guard (lowered.hasPrefix("mailto:") || lowered.hasPrefix("https:")) && subject.count > 7 else {
                throw ConfigurationError("LIVELINE_WEBPUSH_SUBJECT must be a mailto: or https: contact, not '\(subject)'")
            }
            config.webPushSubject = subject
        }
        if let text = environment["LIVELINE_WEBPUSH_ALLOW_INSECURE"], !text.isEmpty {
            guard ["0", "1"].contains(text) else { throw ConfigurationError("LIVELINE_WEBPUSH_ALLOW_INSECURE must be 0 or 1, not '\(text)'") }
            config.webPushAllowInsecure = text == "1"
        }
        config.apns = try APNSConfiguration.fromEnvironment(environment)
        try config.apns.validate()
        return config
    }

    static func integer(_ text: String, name: String, in range: ClosedRange<Int>) throws -> Int {
        guard let value = Int(text), range.contains(value) else {
            throw ConfigurationError("\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), not '\(text)'")
        }
        return value
    }
}

/// A configuration value that cannot be used; the message names it and what was expected.
public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
