import Foundation
import LivelineModel
import LivelineServer

/// The APNs options `push` and `doctor` share; each overrides its `LIVELINE_APNS_*` variable.
enum APNSOptions {
    static let names: Set<String> = [
        "key", "key-id", "team-id", "bundle-id", "environment", "host", "port", "management-port", "ca-file", "broadcast-host",
    ]

    static let help = """
          --key FILE            the .p8 key                          [LIVELINE_APNS_KEY_PATH]
          --key-id ID           its 10-character key id              [LIVELINE_APNS_KEY_ID]
          --team-id ID          the 10-character team id             [LIVELINE_APNS_TEAM_ID]
          --bundle-id ID        the app's bundle id                  [LIVELINE_APNS_BUNDLE_ID, dev.liveline.demo]
          --environment E       sandbox or production                [LIVELINE_APNS_ENVIRONMENT, sandbox]
          --host H --port P     another APNs-speaking server, e.g. a `liveline sandbox`
          --management-port P   its channel management port
          --ca-file FILE        a CA file to trust (the sandbox prints its own)
          --broadcast-host H    host of broadcast sends (default: the device host)
        """

    static func configuration(_ args: Arguments, context: CLIContext) throws -> APNSConfiguration {
        var config: APNSConfiguration
        do {
            config = try APNSConfiguration.fromEnvironment(context.environment)
        } catch let error as ConfigurationError {
            throw CLIError(error.message)
        }
        if let value = args.value("key") { config.keyPath = value }
        if let value = args.value("key-id") { config.keyID = value }
        if let value = args.value("team-id") { config.teamID = value }
        if let value = args.value("bundle-id") { config.bundleID = value }
        if let value = args.value("environment") {
            guard let environment = PushEnvironment(rawValue: value) else {
                throw CLIError("--environment must be sandbox or production, not '\(value)'")
            }
            config.environment = environment
        }
        if let value = args.value("host") { config.host = value }
        if let port = try args.integer("port", in: 1...65535) { config.port = port }
        if let port = try args.integer("management-port", in: 1...65535) { config.managementPort = port }
        if let value = args.value("ca-file") { config.caFile = value }
        if let value = args.value("broadcast-host") { config.broadcastHost = value }
        return config
    }
}
