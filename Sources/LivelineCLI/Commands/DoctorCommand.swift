import Foundation
import LivelineCrypto
import LivelineModel
import LivelinePush
import LivelinePushWire
import LivelineServer

/// `liveline doctor`: checks the APNs configuration end to end, one clear line per check, in each
/// environment a server with this configuration pushes to.
enum DoctorCommand: CLICommand {
    static let name = "doctor"
    static let summary = "check the APNs key, team, bundle id, connection and auth (both environments), one line per check"
    static func help(_ context: CLIContext) -> String {
        """
        Usage: liveline doctor [APNs options]
               liveline doctor --info-plist FILE [--entitlements FILE] [APNs options]

        Loads the configured .p8 key, signs a provider token with it, checks the key id, team id,
        bundle id and Live Activity topic, connects to APNs over HTTP/2 and sends a Live Activity
        push to a dummy device token: APNs answering BadDeviceToken proves the key, team and topic
        are accepted (no device is involved). Exit code 0 when every check passes, 1 otherwise.

        A server with a key pushes each token through its own environment's server, so doctor
        connects and sends in both environments, one line per check labelled with its environment
        ("✔ production: connected to …"): Apple's development and production servers, or the ones
        LIVELINE_APNS_DEVELOPMENT_HOST / _PORT and LIVELINE_APNS_PRODUCTION_HOST / _PORT name.
        Pointed at one other server with LIVELINE_APNS_HOST (or --host), a server serves the
        default environment only, so only that one is checked (a line on standard error says
        so) unless the other environment has its own host or port.

        With --info-plist, doctor checks the app instead (XML or binary property lists), one line
        per check: NSSupportsLiveActivities is YES in the app's Info.plist (not only in a widget
        extension's), NSSupportsLiveActivitiesFrequentUpdates is YES when the configured budgets
        (LIVELINE_PRIORITY_BUDGET, LIVELINE_PRIORITY_BUDGET_BY_TYPE) exceed 12 an hour,
        CFBundleIdentifier is the bundle id the server pushes to, and — with --entitlements — the
        aps-environment entitlement matches LIVELINE_APNS_ENVIRONMENT. Exit 1 on any ✘.

        APNs options:
        \(APNSOptions.help)
        """
    }

    /// The token sent to: valid hex, never a real device's.
    static let dummyToken = String(repeating: "0", count: 64)

    static func run(_ arguments: [String], context: CLIContext) throws -> Int32 {
        let args = try Arguments(arguments, options: APNSOptions.names.union(["info-plist", "entitlements"]))
        guard args.positionals.isEmpty else { throw CLIError("unexpected argument '\(args.positionals[0])'") }
        let config = try APNSOptions.configuration(args, context: context)
        if let plist = args.value("info-plist") { return try checkApp(infoPlist: plist, args: args, config: config, context: context) }
        guard args.value("entitlements") == nil else { throw CLIError("--entitlements goes with --info-plist") }
        let report = Report(context: context)
        guard let credentials = credentials(config, report: report) else { return 1 }
        // Both environments when a server with this configuration pushes to both
        // (`APNSConfiguration.servesOtherEnvironment`), each through its own server.
        var targets = [(config.environment, config.apnsEnvironment)]
        if config.servesOtherEnvironment {
            targets.append((config.otherEnvironment, config.otherAPNSEnvironment))
        } else {
            let other = config.otherEnvironment
            let names = other == .production ? "LIVELINE_APNS_PRODUCTION_HOST or _PORT" : "LIVELINE_APNS_DEVELOPMENT_HOST or _PORT"
            context.printError(
                "· \(label(other)): not checked: LIVELINE_APNS_HOST points the server at one other APNs server (\(config.apnsEnvironment.device)), which serves the default environment only; set \(names) to use and check the \(label(other)) one too"
            )
        }
        for (environment, endpoints) in targets {
            let labelled = targets.count > 1
            let prefix = labelled ? "\(label(environment)): " : ""
            try check(
                endpoints, of: environment, isDefault: environment == config.environment, labelled: labelled, bundleID: config.bundleID,
                credentials: credentials, pass: { report.pass(prefix + $0) }, fail: { report.fail(prefix + $0) })
        }
        return report.failures == 0 ? 0 : 1
    }

    /// The ✔ and ✘ lines of a run, and how many failed.
    final class Report {
        let context: CLIContext
        private(set) var failures = 0

        init(context: CLIContext) { self.context = context }

        func pass(_ text: String) { context.print("✔ \(text)") }

        func fail(_ text: String) {
            failures += 1
            context.print("✘ \(text)")
        }
    }

    /// `--info-plist`: the app's Info.plist (and entitlements) against this configuration.
    static func checkApp(infoPlist plist: String, args: Arguments, config: APNSConfiguration, context: CLIContext) throws -> Int32 {
        let server: ServerConfiguration
        do {
            server = try ServerConfiguration.fromEnvironment(context.environment)
        } catch let error as ConfigurationError {
            throw CLIError(error.message)
        }
        var budgets = ["LIVELINE_PRIORITY_BUDGET": server.priorityBudget]
        for (type, budget) in server.priorityBudgetByType { budgets["LIVELINE_PRIORITY_BUDGET_BY_TYPE \(type)"] = budget }
        let outcome = InfoPlistCheck.run(
            infoPlist: URL(fileURLWithPath: plist), entitlements: args.value("entitlements").map { URL(fileURLWithPath: $0) },
            bundleID: config.bundleID, environment: config.environment, budgets: budgets)
        outcome.lines.forEach(context.print)
        return outcome.failures == 0 ? 0 : 1
    }

    /// The key, its id, the team id and the bundle id, checked one line each, and a provider
    /// token signed with them; nil when the server could not sign one.
    static func credentials(_ config: APNSConfiguration, report: Report) -> APNSCredentials? {
        guard let keyPath = config.keyPath else {
            report.fail("no APNs key configured: set LIVELINE_APNS_KEY_PATH (or --key) to your .p8 file")
            return nil
        }
        let key: ES256PrivateKey
        do {
            key = try ES256PrivateKey(contentsOf: URL(fileURLWithPath: keyPath))
            report.pass("key \(keyPath) is a P-256 private key (ES256)")
        } catch {
            report.fail("key \(keyPath): \(error)")
            return nil
        }
        guard let keyID = config.keyID, keyID.count == 10 else {
            report.fail("key id: \(config.keyID.map { "'\($0)' is not 10 characters" } ?? "missing (LIVELINE_APNS_KEY_ID or --key-id)")")
            return nil
        }
        report.pass("key id \(keyID)")
        guard let teamID = config.teamID, teamID.count == 10 else {
            report.fail("team id: \(config.teamID.map { "'\($0)' is not 10 characters" } ?? "missing (LIVELINE_APNS_TEAM_ID or --team-id)")")
            return nil
        }
        report.pass("team id \(teamID)")
        do {
            try config.validate()
            report.pass("bundle id \(config.bundleID); Live Activity topic \(APNSPushType.liveActivity.topic(bundleID: config.bundleID))")
        } catch {
            report.fail("\(error)")
        }
        do {
            let token = try ProviderToken.sign(keyID: keyID, teamID: teamID, issuedAt: Int(Date().timeIntervalSince1970), key: key)
            guard token.verify(with: key.publicKey) else { throw CLIError("the signature does not verify") }
            report.pass("signed a provider token (ES256, kid \(keyID), iss \(teamID))")
        } catch {
            report.fail("signing a provider token: \(error)")
            return nil
        }
        return APNSCredentials(keyID: keyID, teamID: teamID, key: key)
    }

    /// Apple's name of the environment (`sandbox` is its development one).
    static func label(_ environment: PushEnvironment) -> String { environment == .production ? "production" : "development" }

    /// Connects to `endpoints` and sends a Live Activity push to the dummy token: APNs answering
    /// `400 BadDeviceToken` proves the key, team and topic are accepted there (`docs/apns.md`
    /// §1.4). Reports each check through `pass` or `fail` (`labelled`: their caller names the
    /// environment).
    static func check(
        _ endpoints: APNSEnvironment, of environment: PushEnvironment, isDefault: Bool, labelled: Bool, bundleID: String,
        credentials: APNSCredentials,
        pass: (String) -> Void, fail: (String) -> Void
    ) throws {
        let endpoint = endpoints.device
        let client = try APNSClient(
            configuration: APNSClientConfiguration(
                credentials: credentials, environment: endpoints, maxConnectionsPerEndpoint: 1, connectionRetries: 1
            ))
        defer { client.shutdown() }
        let result = PushCommand.wait { done in
            client.send(
                APNSNotification.liveActivity(
                    deviceToken: dummyToken, bundleID: bundleID,
                    payload: Array(#"{"aps":{"timestamp":1,"event":"update","content-state":{}}}"#.utf8)
                ), completion: done)
        }
        if result.status == 0 {
            fail("connecting to \(endpoint)\(labelled ? "" : " (\(environment.rawValue))"): \(result.transportError ?? "no answer")")
            return
        }
        pass("connected to \(endpoint) over HTTP/2 with TLS")
        switch result.reason {
        case .badDeviceToken?:
            pass("APNs accepted the provider token and topic (it answered \(result.summary) for the dummy device token, as expected)")
        case .some(let reason) where [.invalidProviderToken, .expiredProviderToken, .missingProviderToken, .forbidden].contains(reason):
            fail("APNs refused the provider token: \(result.summary) (check the key id, team id and that the key is enabled for APNs)")
        case .badEnvironmentKeyIDInToken? where isDefault:
            fail("APNs says the key is for the other environment: \(result.summary) (check LIVELINE_APNS_ENVIRONMENT)")
        case .badEnvironmentKeyIDInToken?:
            fail("APNs refused the key in this environment: \(result.summary) (the key may be for the other environment only)")
        case .topicDisallowed?, .badTopic?, .deviceTokenNotForTopic?:
            fail(
                "APNs refused the topic \(APNSPushType.liveActivity.topic(bundleID: bundleID)): \(result.summary) (check the bundle id and that the key's team owns it)"
            )
        default:
            fail("unexpected answer for the dummy device token: \(result.summary); expected 400 BadDeviceToken")
        }
    }
}
