import Foundation
import LivelineServer
import Testing

/// Every `LIVELINE_*` variable `ServerConfiguration.fromEnvironment` reads: what a good value sets,
/// which empty values count as unset, and the exact refusal of a bad one.
@Suite struct ServerConfigurationTests {
    /// The message `fromEnvironment` refuses `environment` with, nil when it reads it.
    private func refusal(_ environment: [String: String]) -> String? {
        do {
            _ = try ServerConfiguration.fromEnvironment(environment)
            return nil
        } catch let error as ConfigurationError {
            return error.message
        } catch {
            return "not a ConfigurationError: \(error)"
        }
    }

    @Test func aBadValueIsRefusedWithItsOwnMessage() {
        let cases: [(String, String, String)] = [
            ("LIVELINE_PORT", "x", "LIVELINE_PORT must be a whole number from 0 to 65535, not 'x'"),
            ("LIVELINE_PORT", "", "LIVELINE_PORT must be a whole number from 0 to 65535, not ''"),
            ("LIVELINE_DATABASE_POOL", "0", "LIVELINE_DATABASE_POOL must be a whole number from 1 to 200, not '0'"),
            ("LIVELINE_ADMIN_KEY", "short", "LIVELINE_ADMIN_KEY must be at least 16 characters long"),
            ("LIVELINE_AUTH_FAILURES_PER_MINUTE", "-1", "LIVELINE_AUTH_FAILURES_PER_MINUTE must be a whole number from 0 to 100000, not '-1'"),
            (
                "LIVELINE_PUBLIC_URL", "https://liveline.example.com/app",
                "LIVELINE_PUBLIC_URL must be an http:// or https:// address without a path, such as https://liveline.example.com, "
                    + "not 'https://liveline.example.com/app' (the dashboard and the API are served from the root)"
            ),
            ("LIVELINE_MAX_BODY_BYTES", "1", "LIVELINE_MAX_BODY_BYTES must be a whole number from 1024 to 67108864, not '1'"),
            ("LIVELINE_HTTP_THREADS", "0", "LIVELINE_HTTP_THREADS must be a whole number from 1 to 256, not '0'"),
            ("LIVELINE_ACCESS_LOG", "", "LIVELINE_ACCESS_LOG must be stdout, stderr or off, not ''"),
            ("LIVELINE_LOG_LEVEL", "warn", "LIVELINE_LOG_LEVEL must be debug, info, warning or error, not 'warn'"),
            ("LIVELINE_PUSH_RETRY_DELAY_MS", "0", "LIVELINE_PUSH_RETRY_DELAY_MS must be a whole number from 1 to 600000, not '0'"),
            ("LIVELINE_PUSH_MAX_ATTEMPTS", "101", "LIVELINE_PUSH_MAX_ATTEMPTS must be a whole number from 1 to 100, not '101'"),
            ("LIVELINE_PUSH_MIN_INTERVAL_MS", "-1", "LIVELINE_PUSH_MIN_INTERVAL_MS must be a whole number from 0 to 3600000, not '-1'"),
            ("LIVELINE_PRIORITY_BUDGET", "x", "LIVELINE_PRIORITY_BUDGET must be a whole number from 0 to 10000, not 'x'"),
            ("LIVELINE_PRIORITY_BUDGET_FREQUENT", "", "LIVELINE_PRIORITY_BUDGET_FREQUENT must be a whole number from 0 to 10000, not ''"),
            (
                "LIVELINE_PRIORITY_BUDGET_BY_TYPE", "A=1,Trip",
                "LIVELINE_PRIORITY_BUDGET_BY_TYPE must be Type=number pairs separated by commas, not 'Trip'"
            ),
            ("LIVELINE_QUIET_DEBOUNCE_S", "86401", "LIVELINE_QUIET_DEBOUNCE_S must be a whole number from 0 to 86400, not '86401'"),
            ("LIVELINE_START_BUDGET", "0", "LIVELINE_START_BUDGET must be a whole number from 1 to 1000, not '0'"),
            ("LIVELINE_OUTBOX_LEASE_S", "1", "LIVELINE_OUTBOX_LEASE_S must be a whole number from 2 to 3600, not '1'"),
            ("LIVELINE_DISPATCHER", "yes", "LIVELINE_DISPATCHER must be on or off, not 'yes'"),
            ("LIVELINE_APNS_ENVIRONMENT", "", "LIVELINE_APNS_ENVIRONMENT must be sandbox or production, not ''"),
            ("LIVELINE_APNS_ENVIRONMENT", "prod", "LIVELINE_APNS_ENVIRONMENT must be sandbox or production, not 'prod'"),
            ("LIVELINE_WEBPUSH_SUBJECT", "ftp:ops", "LIVELINE_WEBPUSH_SUBJECT must be a mailto: or https: contact, not 'ftp:ops'"),
            ("LIVELINE_WEBPUSH_SUBJECT", "mailto:", "LIVELINE_WEBPUSH_SUBJECT must be a mailto: or https: contact, not 'mailto:'"),
            ("LIVELINE_WEBPUSH_ALLOW_INSECURE", "2", "LIVELINE_WEBPUSH_ALLOW_INSECURE must be 0 or 1, not '2'"),
            ("LIVELINE_APNS_PORT", "0", "LIVELINE_APNS_PORT must be a whole number from 1 to 65535, not '0'"),
            ("LIVELINE_APNS_MANAGEMENT_PORT", "x", "LIVELINE_APNS_MANAGEMENT_PORT must be a whole number from 1 to 65535, not 'x'"),
            ("LIVELINE_APNS_DEVELOPMENT_PORT", "65536", "LIVELINE_APNS_DEVELOPMENT_PORT must be a whole number from 1 to 65535, not '65536'"),
            (
                "LIVELINE_APNS_DEVELOPMENT_MANAGEMENT_PORT", "0",
                "LIVELINE_APNS_DEVELOPMENT_MANAGEMENT_PORT must be a whole number from 1 to 65535, not '0'"
            ),
            ("LIVELINE_APNS_PRODUCTION_PORT", "0", "LIVELINE_APNS_PRODUCTION_PORT must be a whole number from 1 to 65535, not '0'"),
            (
                "LIVELINE_APNS_PRODUCTION_MANAGEMENT_PORT", "0",
                "LIVELINE_APNS_PRODUCTION_MANAGEMENT_PORT must be a whole number from 1 to 65535, not '0'"
            ),
            ("LIVELINE_APNS_ENVIRONMENTS", "three", "LIVELINE_APNS_ENVIRONMENTS must be both or one, not 'three'"),
            ("LIVELINE_SANDBOX_ENVIRONMENTS", "two", "LIVELINE_SANDBOX_ENVIRONMENTS must be one or both, not 'two'"),
            ("LIVELINE_APNS_KEY_PATH", "/tmp/AuthKey.p8", "LIVELINE_APNS_KEY_ID is needed with LIVELINE_APNS_KEY_PATH"),
            ("LIVELINE_APNS_BUNDLE_ID", "demo", "the bundle id must look like com.example.app, not 'demo'"),
        ]
        for (name, value, message) in cases {
            #expect(refusal([name: value]) == message, "\(name)=\(value)")
        }
    }

    @Test func theFirstBadVariableInReadingOrderIsTheOneNamed() {
        #expect(refusal(["LIVELINE_PORT": "x", "LIVELINE_DISPATCHER": "x"])?.hasPrefix("LIVELINE_PORT ") == true)
        #expect(refusal(["LIVELINE_WEBPUSH_SUBJECT": "x", "LIVELINE_APNS_ENVIRONMENT": "x"])?.hasPrefix("LIVELINE_APNS_ENVIRONMENT ") == true)
        #expect(refusal(["LIVELINE_APNS_PORT": "0", "LIVELINE_WEBPUSH_ALLOW_INSECURE": "x"])?.hasPrefix("LIVELINE_WEBPUSH_ALLOW_INSECURE ") == true)
    }

    @Test func emptyValuesOfTextSettingsCountAsUnset() throws {
        let configuration = try ServerConfiguration.fromEnvironment(
            [
                "LIVELINE_HOST", "LIVELINE_DATA_DIR", "LIVELINE_DATABASE_URL", "LIVELINE_ADMIN_KEY", "LIVELINE_PUBLIC_URL",
                "LIVELINE_PRIORITY_BUDGET_BY_TYPE", "LIVELINE_WEBPUSH_VAPID_KEY", "LIVELINE_WEBPUSH_SUBJECT", "LIVELINE_WEBPUSH_ALLOW_INSECURE",
                "LIVELINE_APNS_KEY_PATH", "LIVELINE_APNS_BUNDLE_ID", "LIVELINE_APNS_HOST", "LIVELINE_APNS_PORT", "LIVELINE_APNS_PRODUCTION_PORT",
                "LIVELINE_APNS_ENVIRONMENTS", "LIVELINE_SANDBOX_ENVIRONMENTS",
            ].reduce(into: [:]) { $0[$1] = "" })
        #expect(configuration.host == "0.0.0.0" && configuration.dataDirectory.lastPathComponent == "liveline-data")
        #expect(configuration.databaseURL == nil && configuration.adminKey == nil && configuration.publicURL == nil)
        #expect(configuration.priorityBudgetByType.isEmpty && configuration.webPushKeyPath == nil && configuration.webPushSubject == nil)
        #expect(!configuration.webPushAllowInsecure && configuration.apns.keyPath == nil && configuration.apns.bundleID == "dev.liveline.demo")
        #expect(configuration.apns.host == nil && configuration.apns.port == nil && configuration.apns.productionPort == nil)
        #expect(configuration.apns.servesBothEnvironments && !configuration.apns.sandboxPlaysBoth)
    }

    @Test func goodValuesSetTheirFields() throws {
        let configuration = try ServerConfiguration.fromEnvironment([
            "LIVELINE_HOST": "127.0.0.1", "LIVELINE_PORT": "0", "LIVELINE_DATA_DIR": "/tmp/ll", "LIVELINE_DATABASE_URL": "postgresql://db/ll",
            "LIVELINE_DATABASE_POOL": "4", "LIVELINE_ADMIN_KEY": "0123456789abcdef", "LIVELINE_AUTH_FAILURES_PER_MINUTE": "0",
            "LIVELINE_PUBLIC_URL": "https://liveline.example.com/", "LIVELINE_MAX_BODY_BYTES": "2048", "LIVELINE_HTTP_THREADS": "3",
            "LIVELINE_ACCESS_LOG": "off", "LIVELINE_OUTBOX_LEASE_S": "5", "LIVELINE_APNS_ENVIRONMENT": "production",
            "LIVELINE_WEBPUSH_VAPID_KEY": "/tmp/vapid.pem", "LIVELINE_WEBPUSH_SUBJECT": "mailto:ops@example.com",
            "LIVELINE_WEBPUSH_ALLOW_INSECURE": "1", "LIVELINE_APNS_HOST": "127.0.0.1", "LIVELINE_APNS_PORT": "2197",
            "LIVELINE_APNS_MANAGEMENT_PORT": "2198", "LIVELINE_APNS_BROADCAST_HOST": "127.0.0.2", "LIVELINE_APNS_CA_FILE": "/tmp/ca.pem",
            "LIVELINE_APNS_DEVELOPMENT_HOST": "127.0.0.3", "LIVELINE_APNS_DEVELOPMENT_PORT": "3197",
            "LIVELINE_APNS_DEVELOPMENT_MANAGEMENT_PORT": "3198", "LIVELINE_APNS_PRODUCTION_HOST": "127.0.0.4",
            "LIVELINE_APNS_PRODUCTION_PORT": "4197", "LIVELINE_APNS_PRODUCTION_MANAGEMENT_PORT": "4198", "LIVELINE_APNS_BUNDLE_ID": "com.example.app",
            "LIVELINE_APNS_ENVIRONMENTS": "one", "LIVELINE_SANDBOX_ENVIRONMENTS": "both", "LIVELINE_APNS_KEY_PATH": "/tmp/AuthKey.p8",
            "LIVELINE_APNS_KEY_ID": "ABCDE12345", "LIVELINE_APNS_TEAM_ID": "TEAM012345",
        ])
        #expect(configuration.host == "127.0.0.1" && configuration.port == 0 && configuration.dataDirectory.path == "/tmp/ll")
        #expect(configuration.databaseURL == "postgresql://db/ll" && configuration.databasePool == 4)
        #expect(configuration.adminKey == "0123456789abcdef" && configuration.authFailuresPerMinute == 0)
        #expect(configuration.publicURL?.absoluteString == "https://liveline.example.com/")
        #expect(configuration.maxBodyBytes == 2048 && configuration.httpThreads == 3 && configuration.accessLog == "off")
        #expect(configuration.outboxLease == 5 && configuration.defaultPushEnvironment == .production)
        #expect(configuration.webPushKeyPath == "/tmp/vapid.pem" && configuration.webPushSubject == "mailto:ops@example.com")
        #expect(configuration.webPushAllowInsecure)
        let apns = configuration.apns
        #expect(apns.environment == .production && apns.bundleID == "com.example.app" && apns.keyPath == "/tmp/AuthKey.p8")
        #expect(apns.keyID == "ABCDE12345" && apns.teamID == "TEAM012345")
        #expect(apns.host == "127.0.0.1" && apns.port == 2197 && apns.managementPort == 2198)
        #expect(apns.broadcastHost == "127.0.0.2" && apns.caFile == "/tmp/ca.pem")
        #expect(apns.developmentHost == "127.0.0.3" && apns.developmentPort == 3197 && apns.developmentManagementPort == 3198)
        #expect(apns.productionHost == "127.0.0.4" && apns.productionPort == 4197 && apns.productionManagementPort == 4198)
        #expect(!apns.servesBothEnvironments && apns.sandboxPlaysBoth)
    }
}
