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
    /// `LIVELINE_CONTRACTS_DIR`: a folder of an app's contract files, loaded at start.
    public var contractsDirectory: URL?
    /// The key of the server-to-server `/v1` API (`LIVELINE_ADMIN_KEY`); generated and stored in
    /// the data folder when unset.
    public var adminKey: String?
    /// Largest request body accepted (`LIVELINE_MAX_BODY_BYTES`), default 1 MiB.
    public var maxBodyBytes = 1 << 20
    /// HTTP worker threads (`LIVELINE_HTTP_THREADS`); default two per core, at least 4. A worker
    /// answers its requests one at a time and waits while a write commits, so with one per core
    /// the cores sat idle under writes (`docs/decisions/group-commit-and-http-workers.md`).
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
    /// Least time between two widget pushes to one device (`LIVELINE_WIDGET_PUSH_INTERVAL_S`,
    /// default 40 minutes, at most 36 a day: inside the 40 to 70 reloads a day Apple gives a
    /// widget viewed often, "Keeping a widget up to date"); changes meanwhile go out in one
    /// trailing push (`docs/engine.md`, "Widget pushes").
    public var widgetPushInterval: TimeInterval = 40 * 60
    /// Priority-10 pushes per activity per hour (`LIVELINE_PRIORITY_BUDGET`, default 12), for
    /// devices with frequent updates allowed (`LIVELINE_PRIORITY_BUDGET_FREQUENT`, 36), and per
    /// activity type (`LIVELINE_PRIORITY_BUDGET_BY_TYPE`, e.g. `DeliveryActivityAttributes=20`).
    public var priorityBudget = 12
    public var frequentPriorityBudget = 36
    public var priorityBudgetByType: [String: Int] = [:]
    /// How long a quiet (not material) change waits after the last push (`LIVELINE_QUIET_DEBOUNCE_S`, 30).
    public var quietChangeDebounce: TimeInterval = 30
    /// Push-to-starts per device per hour (`LIVELINE_START_BUDGET`, 8).
    public var startBudget = 8
    /// Activity types whose cards are renewed before their 8-hour limit (`LIVELINE_RENEW_TYPES`,
    /// docs/engine.md, "Renewal"), and how long before it (`LIVELINE_RENEWAL_LEAD_S`, 1800).
    public var renewingTypes: Set<String> = []
    public var renewalLead: TimeInterval = 30 * 60
    /// How long a dispatcher holds a claimed outbox row before another may take it
    /// (`LIVELINE_OUTBOX_LEASE_S`, default 30): after a crash, rows in flight go out again then.
    public var outboxLease: TimeInterval = 30
    /// How long after a reconcile listed an orphan channel it is deleted (default 60 s; see
    /// `EngineConfiguration.orphanChannelGrace`).
    public var orphanChannelGrace: TimeInterval = 60
    /// How long a start waits for APNs to create its channel before it falls back to update
    /// tokens (default 1 s; see `EngineConfiguration.channelCreationWait`).
    public var channelCreationWait: TimeInterval = 1
    /// How APNs is reached: Apple with a configured key, else the in-process sandbox.
    public var apns = APNSConfiguration()
    /// Web Push (docs/operations.md, "Web Push"): the VAPID key's PEM file (`LIVELINE_WEBPUSH_VAPID_KEY`;
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

    /// Reads the `LIVELINE_*` variables over the defaults: a loop over ``settings``, then the
    /// APNs ones (``APNSConfiguration/settings``), checked together. A malformed value is an error
    /// naming it.
    public static func fromEnvironment(_ environment: [String: String]) throws -> ServerConfiguration {
        var config = ServerConfiguration()
        config.environment = environment
        for reader in settings { try reader.read(environment, into: &config) }
        config.apns = try APNSConfiguration.fromEnvironment(environment)
        try config.apns.validate()
        return config
    }
}

/// A configuration value that cannot be used; the message names it and what was expected.
public struct ConfigurationError: Error, CustomStringConvertible, Sendable {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
