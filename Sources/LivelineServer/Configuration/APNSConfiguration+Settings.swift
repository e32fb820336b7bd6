import LivelineAPI
import LivelineModel

extension APNSConfiguration {
    /// The `LIVELINE_APNS_*` variables (and `LIVELINE_SANDBOX_ENVIRONMENTS`), in reading order:
    /// ``fromEnvironment(_:)`` reads these rows; an empty value counts as unset for each.
    public static let settings: [SettingReader<APNSConfiguration>] = [
        .text(
            "LIVELINE_APNS_KEY_PATH", default: "none: pushes go to the in-process APNs sandbox", values: "a .p8 file",
            meaning: "the APNs auth key Apple gave you (`push` and `doctor`: `--key` wins)", commands: apnsCommands
        ) { $0.keyPath = $1 },
        .text(
            "LIVELINE_APNS_KEY_ID", default: "none", values: "10 characters",
            meaning: "the key's id, as Apple shows it with the key; needed with a key", commands: apnsCommands
        ) { $0.keyID = $1 },
        .text(
            "LIVELINE_APNS_TEAM_ID", default: "none", values: "10 characters", meaning: "your Apple team's id; needed with a key",
            commands: apnsCommands
        ) { $0.teamID = $1 },
        .text(
            "LIVELINE_APNS_BUNDLE_ID", default: "dev.liveline.demo", values: "a bundle id such as com.example.app",
            meaning: "the app's bundle id (topics get their suffix per push type)", commands: apnsCommands
        ) { $0.bundleID = $1 },
        environmentReader(emptyIsUnset: true) { $0.environment = $1 },
        .text(
            "LIVELINE_APNS_HOST", default: "Apple's", values: "a host name or address",
            meaning:
                "another APNs-speaking server for the default environment, e.g. a `liveline sandbox`; a server pointed at it serves "
                + "the default environment only, unless the other one has its own server here",
            commands: apnsCommands
        ) { $0.host = $1 },
        port("LIVELINE_APNS_PORT", default: "443", of: "that server's port for device pushes") { $0.port = $1 },
        port("LIVELINE_APNS_MANAGEMENT_PORT", default: "Apple's: 2195 (development), 2196 (production)", of: "its channel management port") {
            $0.managementPort = $1
        },
        .text(
            "LIVELINE_APNS_BROADCAST_HOST", default: "the device host", values: "a host name or address",
            meaning: "the host of broadcast sends (Apple's documents disagree)", commands: apnsCommands
        ) { $0.broadcastHost = $1 },
        .text(
            "LIVELINE_APNS_DEVELOPMENT_HOST", default: "Apple's", values: "a host name or address",
            meaning:
                "the development environment's own server; with a key, a server that talks to Apple (no LIVELINE_APNS_HOST) pushes "
                + "both environments, each token through its own",
            commands: apnsCommands
        ) { $0.developmentHost = $1 },
        port("LIVELINE_APNS_DEVELOPMENT_PORT", default: "443", of: "its port for device pushes") { $0.developmentPort = $1 },
        port("LIVELINE_APNS_DEVELOPMENT_MANAGEMENT_PORT", default: "2195", of: "its channel management port") {
            $0.developmentManagementPort = $1
        },
        .text(
            "LIVELINE_APNS_PRODUCTION_HOST", default: "Apple's", values: "a host name or address",
            meaning: "the production environment's own server, the same way", commands: apnsCommands
        ) { $0.productionHost = $1 },
        port("LIVELINE_APNS_PRODUCTION_PORT", default: "443", of: "its port for device pushes") { $0.productionPort = $1 },
        port("LIVELINE_APNS_PRODUCTION_MANAGEMENT_PORT", default: "2196", of: "its channel management port") {
            $0.productionManagementPort = $1
        },
        .text(
            "LIVELINE_APNS_CA_FILE", default: "the system's trust", values: "a PEM file",
            meaning: "a CA to trust for the servers put in Apple's place (a sandbox prints its own)", commands: apnsCommands
        ) { $0.caFile = $1 },
        .oneOf(
            "LIVELINE_APNS_ENVIRONMENTS", [("both", true), ("one", false)], default: "both",
            meaning:
                "with a key: both (each token through its own environment) or one (the default environment only: a key limited to "
                + "one environment, or another server of the app serving the other)",
            commands: ["serve", "doctor"], emptyIsUnset: true
        ) { $0.servesBothEnvironments = $1 },
        .oneOf(
            "LIVELINE_SANDBOX_ENVIRONMENTS", [("one", false), ("both", true)], default: "one",
            meaning:
                "without a key: one (the in-process sandbox plays the default environment) or both (one in-process sandbox per "
                + "environment, one key and CA file)",
            emptyIsUnset: true
        ) { $0.sandboxPlaysBoth = $1 },
    ]

    /// The commands that reach APNs with these settings.
    static let apnsCommands = ["serve", "push", "doctor"]

    /// `LIVELINE_APNS_ENVIRONMENT`, one row read into two configurations: the APNs one's
    /// environment, and the server's default for tokens registered without one.
    static func environmentReader<Configuration>(
        emptyIsUnset: Bool, set: @escaping @Sendable (inout Configuration, PushEnvironment) -> Void
    ) -> SettingReader<Configuration> {
        .oneOf(
            "LIVELINE_APNS_ENVIRONMENT", [("sandbox", .sandbox), ("production", .production)], default: "sandbox",
            meaning:
                "the default APNs environment (sandbox is Apple's development one): the key's, and that of tokens registered "
                + "without one (`push` and `doctor`: `--environment` wins)",
            commands: apnsCommands, emptyIsUnset: emptyIsUnset, set: set)
    }

    /// A port of an APNs server, 1 to 65535.
    private static func port(
        _ name: String, default defaultValue: String, of meaning: String, set: @escaping @Sendable (inout APNSConfiguration, Int) -> Void
    ) -> SettingReader<APNSConfiguration> {
        .wholeNumber(name, default: defaultValue, in: 1...65535, meaning: meaning, commands: apnsCommands, emptyIsUnset: true, set: set)
    }
}
