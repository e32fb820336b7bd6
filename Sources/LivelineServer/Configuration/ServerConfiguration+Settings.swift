import Foundation
import LivelineAPI
import LivelineLog

extension ServerConfiguration {
    /// The server's `LIVELINE_*` variables, in reading order: ``fromEnvironment(_:)`` reads these
    /// rows, then ``APNSConfiguration/settings``.
    public static let settings: [SettingReader<ServerConfiguration>] = [
        .text(
            "LIVELINE_HOST", default: "0.0.0.0", values: "an IPv4 address", meaning: "the address to listen on (`serve --host` wins)"
        ) { $0.host = $1 },
        .wholeNumber(
            "LIVELINE_PORT", default: "8080", in: 0...65535, meaning: "the port to listen on; 0 picks a free one and prints it (`serve --port` wins)"
        ) { $0.port = $1 },
        .text(
            "LIVELINE_DATA_DIR", default: "./liveline-data", values: "a folder",
            meaning: "the SQLite database and the generated secrets (`--data` wins)", commands: ["serve", "users"]
        ) { $0.dataDirectory = URL(fileURLWithPath: $1) },
        .text(
            "LIVELINE_DATABASE_URL", default: "SQLite in the data folder", values: "postgresql://user:password@host:port/dbname",
            meaning: "a PostgreSQL database several instances share (docs/operations.md, \"Several instances\"; `--database-url` wins)",
            commands: ["serve", "users"]
        ) { $0.databaseURL = $1 },
        SettingReader(
            Setting(
                "LIVELINE_CONTRACTS_DIR", default: "none", values: "a folder of contract files (*.json)",
                meaning:
                    "an app's own Live Activity contracts, loaded at start beside the built-in ones; a bad file is logged and skipped, "
                    + "a folder that cannot be read stops the start (docs/contracts.md, \"Bring your own Live Activity\")"),
            emptyIsUnset: true
        ) { config, path, _ in config.contractsDirectory = URL(fileURLWithPath: path) },
        .wholeNumber(
            "LIVELINE_DATABASE_POOL", default: "10", in: 1...200,
            meaning: "PostgreSQL connections one instance opens at most (plus two for notifications)", commands: ["serve", "users"]
        ) { $0.databasePool = $1 },
        SettingReader(
            Setting(
                "LIVELINE_ADMIN_KEY", default: "generated once, kept in the data folder's admin-key", values: "at least 16 characters",
                meaning: "the bearer key of the /v1 server-to-server API, and what signs a person in to the dashboard"),
            emptyIsUnset: true
        ) { config, key, setting in
            guard key.count >= 16 else { throw ConfigurationError("\(setting.name) must be at least 16 characters long") }
            config.adminKey = key
        },
        .wholeNumber(
            "LIVELINE_AUTH_FAILURES_PER_MINUTE", default: "30", in: 0...100_000,
            meaning:
                "failed authentications (bearer token, admin key, dashboard sign-in) per client address and minute before it is "
                + "answered 429; 0: no limit"
        ) { $0.authFailuresPerMinute = $1 },
        SettingReader(
            Setting(
                "LIVELINE_PUBLIC_URL", default: "the listening address",
                values: "an http:// or https:// address without a path, such as https://liveline.example.com",
                meaning: "the address people reach the server at: what `serve` prints for the dashboard; with https its cookies are Secure"),
            emptyIsUnset: true
        ) { config, text, setting in
            guard let url = publicURL(text) else {
                throw ConfigurationError(setting.refusal(text) + " (the dashboard and the API are served from the root)")
            }
            config.publicURL = url
        },
        .wholeNumber(
            "LIVELINE_MAX_BODY_BYTES", default: "1048576", in: 1024...(64 << 20),
            meaning: "the largest request body accepted; a larger one is answered 413"
        ) { $0.maxBodyBytes = $1 },
        .wholeNumber("LIVELINE_HTTP_THREADS", default: "two per core, at least 4", in: 1...256, meaning: "HTTP worker threads") {
            $0.httpThreads = $1
        },
        .oneOf(
            "LIVELINE_ACCESS_LOG", [("stdout", "stdout"), ("stderr", "stderr"), ("off", "off")], default: "stdout",
            meaning: "where the JSON line of each request goes; the engine's events go to the same stream (with off, to stdout)"
        ) { $0.accessLog = $1 },
        .oneOf(
            "LIVELINE_LOG_LEVEL", LogLevel.allCases.map { ($0.rawValue, $0) }, default: "info",
            meaning:
                "the least level of the engine's events logged, one JSON line each (docs/operations.md, \"Logs\"); debug adds every push and its answer"
        ) { $0.logLevel = $1 },
        .wholeNumber(
            "LIVELINE_PUSH_RETRY_DELAY_MS", default: "1000", in: 1...600_000,
            meaning:
                "milliseconds before resending what APNs asked to retry (5xx, 429, no answer); each further wait doubles, "
                + "±20 % jitter, at most 15 minutes"
        ) { $0.pushRetry.initialDelay = .milliseconds($1) },
        .wholeNumber(
            "LIVELINE_PUSH_MAX_ATTEMPTS", default: "8", in: 1...100,
            meaning: "sends of one push before it becomes a dead letter (shown in the context's timeline)"
        ) { $0.pushRetry.maximumAttempts = $1 },
        .wholeNumber(
            "LIVELINE_PUSH_MIN_INTERVAL_MS", default: "1000", in: 0...3_600_000,
            meaning: "the least milliseconds between two pushes of one context; changes meanwhile go out together (0: every change at once)"
        ) { $0.minimumPushInterval = Double($1) / 1000 },
        .wholeNumber(
            "LIVELINE_WIDGET_PUSH_INTERVAL_S", default: "2400", in: 0...86_400,
            meaning:
                "the least seconds between two WidgetKit pushes to one device; changes meanwhile go out in one push after it "
                + "(0: every change at once; Apple budgets a widget's reloads)"
        ) { $0.widgetPushInterval = Double($1) },
        .wholeNumber(
            "LIVELINE_PRIORITY_BUDGET", default: "12", in: 0...10_000,
            meaning: "priority-10 pushes per activity per hour; material changes beyond it go at priority 5", commands: ["serve", "doctor"]
        ) { $0.priorityBudget = $1 },
        .wholeNumber(
            "LIVELINE_PRIORITY_BUDGET_FREQUENT", default: "36", in: 0...10_000,
            meaning: "the same for devices that reported frequent_pushes_enabled"
        ) { $0.frequentPriorityBudget = $1 },
        SettingReader(
            Setting(
                "LIVELINE_PRIORITY_BUDGET_BY_TYPE", default: "a feature's own for its type, else LIVELINE_PRIORITY_BUDGET",
                values: "Type=number pairs separated by commas",
                meaning: "the priority-10 budget per activity type, each 0 to 10000, e.g. DeliveryActivityAttributes=20,NotesActivityAttributes=6",
                commands: ["serve", "doctor"]),
            emptyIsUnset: true
        ) { config, text, setting in config.priorityBudgetByType.merge(try priorityBudgets(text, setting: setting)) { $1 } },
        .wholeNumber(
            "LIVELINE_QUIET_DEBOUNCE_S", default: "30", in: 0...86_400,
            meaning: "seconds a change that is not material waits after the context's last push; then it goes at priority 5"
        ) { $0.quietChangeDebounce = Double($1) },
        .text(
            "LIVELINE_RENEW_TYPES", default: "none", values: "activity types separated by commas",
            meaning:
                "types whose cards the engine renews by push-to-start before the 8-hour limit (docs/engine.md, \"Renewal\"); each a known contract"
        ) { config, text in
            config.renewingTypes = Set(text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty })
        },
        .wholeNumber(
            "LIVELINE_RENEWAL_LEAD_S", default: "1800", in: 660...7200,
            meaning: "seconds before a renewing card's 8-hour limit its successor is started (more than the 10-minute deadline margin)"
        ) { $0.renewalLead = Double($1) },
        .wholeNumber("LIVELINE_START_BUDGET", default: "8", in: 1...1000, meaning: "push-to-starts per device per hour") { $0.startBudget = $1 },
        .wholeNumber(
            "LIVELINE_OUTBOX_LEASE_S", default: "30", in: 2...3600,
            meaning: "seconds a dispatcher holds a claimed outbox row; after a crash, what was in flight is sent again then (at least once)"
        ) { $0.outboxLease = Double($1) },
        .oneOf(
            "LIVELINE_DISPATCHER", [("on", true), ("off", false)], default: "on",
            meaning: "off: this instance takes changes but sends nothing (another one sharing the PostgreSQL database does)"
        ) { $0.dispatcherEnabled = $1 },
        APNSConfiguration.environmentReader(emptyIsUnset: false) { $0.defaultPushEnvironment = $1 },
        .text(
            "LIVELINE_WEBPUSH_VAPID_KEY", default: "generated once, kept in the data folder", values: "a PEM file of a P-256 private key",
            meaning: "the VAPID key web pushes are signed with; several instances must share one"
        ) { $0.webPushKeyPath = $1 },
        SettingReader(
            Setting(
                "LIVELINE_WEBPUSH_SUBJECT", default: "none: no web push is sent", values: "a mailto: or https: contact",
                meaning: "the contact push services see in every VAPID token; required before the first web push (docs/operations.md, \"Web Push\")"),
            emptyIsUnset: true
        ) { config, subject, setting in
            let lowered = subject.lowercased()
            guard (lowered.hasPrefix("mailto:") || lowered.hasPrefix("https:")) && subject.count > 7 else {
                throw ConfigurationError(setting.refusal(subject))
            }
            config.webPushSubject = subject
        },
        .oneOf(
            "LIVELINE_WEBPUSH_ALLOW_INSECURE", [("0", false), ("1", true)], default: "0",
            meaning: "1: web push subscriptions may have http:// endpoints on this machine (local push services, tests)", emptyIsUnset: true
        ) { $0.webPushAllowInsecure = $1 },
    ]

    /// `LIVELINE_PUBLIC_URL`'s address: http or https with a host, and no path, query or fragment
    /// (the dashboard and the API are served from the root); nil for anything else.
    static func publicURL(_ text: String) -> URL? {
        guard let url = URL(string: text), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil,
            url.query == nil, url.fragment == nil, url.path.isEmpty || url.path == "/"
        else { return nil }
        return url
    }

    /// `LIVELINE_PRIORITY_BUDGET_BY_TYPE`'s budgets: `Type=number` pairs separated by commas, each
    /// number 0 to 10000; the first pair that is not one is refused.
    static func priorityBudgets(_ text: String, setting: Setting) throws -> [String: Int] {
        var budgets: [String: Int] = [:]
        for pair in text.split(separator: ",") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, !parts[0].isEmpty, let value = Int(parts[1]), (0...10_000).contains(value) else {
                throw ConfigurationError(setting.refusal(String(pair)))
            }
            budgets[parts[0]] = value
        }
        return budgets
    }
}
