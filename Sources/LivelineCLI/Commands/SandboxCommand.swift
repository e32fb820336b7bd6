import Dispatch
import Foundation
import LivelineClient
import LivelineDevices
import LivelineSandbox
import LivelineScheduling

/// `liveline sandbox`: runs the APNs sandbox standalone until SIGINT or SIGTERM, and prints what
/// a client needs to use it (URLs, the CA file, the provider key and its IDs). With
/// `--environment both` it runs a development and a production sandbox with one key and one CA
/// file (`APNSSandbox.startBoth`), and prints the variables a `liveline serve` needs to push to
/// both (docs/sandbox.md). Each sandbox also runs a Web Push service (docs/sandbox.md, "Web push
/// service") and prints its origin.
enum SandboxCommand: CLICommand {
    static let name = "sandbox"
    static let summary = "run the APNs sandbox (HTTP/2 + TLS, answers like APNs)"
    static func help(_ context: CLIContext) -> String {
        """
        Usage: liveline sandbox [--port N] [--management-port N] [--control-port N] [--web-push-port N]
                                [--host ADDRESS] [--data DIR] [--bundle-id ID] [--max-concurrent-streams N]
                                [--environment development|production|both] [--accept-any-token]
                                [--keep N|all]
                                [--production-port N] [--production-management-port N]
                                [--production-control-port N] [--production-web-push-port N]
                                [--devices FILE]

        Runs an APNs look-alike: device pushes (POST /3/device/<token>) and broadcast sends
        (POST /4/broadcasts/apps/<bundle>) on the device port, the channel management API
        (/1/apps/<bundle>/channels, /all-channels) on the management port, over HTTP/2 with TLS.
        It answers with Apple's status codes and reasons and checks provider tokens (ES256 JWTs)
        against the key it generates on first start. A JSON HTTP/1.1 control port registers
        device tokens, injects faults and shows what was accepted (docs/sandbox.md).
        It also runs a browser vendor's push service over HTTP/1.1 on the web push port: endpoints
        http://<host>:<port>/push/<id> for simulated browser subscriptions (POST /subscriptions
        there makes one), checked like Apple's push service (TTL, Urgency, Topic, VAPID, aes128gcm)
        and decrypted with the subscription's key (docs/sandbox.md, "Web push service").
        On SIGINT or SIGTERM it sends GOAWAY {"reason":"Shutdown"} and exits.

        With --environment both it runs two in one process, as Apple has two servers: a development
        one on --port, --management-port and --control-port, and a production one on the
        --production-* ports, sharing the certificate (one CA file) and the .p8 key in --data. It
        prints both, then the LIVELINE_APNS_* variables a `liveline serve` (or `liveline doctor`)
        needs to push to both: development as the default environment, production as the other.

        Options:
          --port N                  device port (0 picks a free one)                 [2197]
          --management-port N       channel management port                          [2195]
          --control-port N          JSON control port (HTTP/1.1)                     [2199]
          --web-push-port N         Web Push service and its control API (HTTP/1.1)  [2198]
          --host ADDRESS            IPv4 address to listen on                        [127.0.0.1]
          --data DIR                certificate, key and .p8 live here               [./liveline-sandbox]
          --bundle-id ID            the app whose topics are allowed                 [dev.liveline.demo]
          --max-concurrent-streams N  SETTINGS_MAX_CONCURRENT_STREAMS                [1000]
          --environment ENV         development (answers carry apns-unique-id), production, or both
                                    (one of each)                                    [development]
          --production-port N       with both: the production sandbox's device port  [2297]
          --production-management-port N  with both: its channel management port    [2295]
          --production-control-port N     with both: its JSON control port          [2299]
          --production-web-push-port N    with both: its Web Push service           [2298]
          --accept-any-token        accept pushes to tokens nobody registered (ad-hoc use, benchmarks)
          --keep N|all              accepted pushes kept for the control port's lists: at most N
                                    in all and 1000 per token or channel, the oldest going first;
                                    all keeps every one (memory grows with each push) [100000]
          --devices FILE            attach simulated iPhones (JSON, docs/devices.md); their
                                    tokens are registered here (with both: in the sandbox of each
                                    device's "environment", sandbox or production), their apps register
                                    with the server, and every decision they make is printed to
                                    standard error

        Device tokens must be registered through the control port unless --accept-any-token:
          curl -s -X POST http://127.0.0.1:2199/devices -H 'Content-Type: application/json' -d '{"token":"<hex>"}'
        A simulated browser subscription (endpoint, keys, private key) from the web push port:
          curl -s -X POST http://127.0.0.1:2198/subscriptions
        """
    }

    /// The options of the production sandbox of `--environment both`.
    static let productionOptions = [
        "production-port", "production-management-port", "production-control-port", "production-web-push-port",
    ]

    static func run(_ arguments: [String], context: CLIContext) throws -> Int32 {
        let args = try Arguments(
            arguments,
            options: Set(
                [
                    "port", "management-port", "control-port", "web-push-port", "host", "data", "bundle-id", "max-concurrent-streams",
                    "environment", "devices", "keep",
                ] + productionOptions),
            flags: ["accept-any-token"]
        )
        guard args.positionals.isEmpty else { throw CLIError("unexpected argument '\(args.positionals[0])'") }
        let (configuration, both) = try Self.configuration(args)
        let productionPorts = try Self.productionPorts(args, both: both, development: configuration)
        let deviceFile: DeviceFile? = try args.value("devices").map { path in
            do {
                return try DeviceFile.load(URL(fileURLWithPath: path), registry: context.contracts)
            } catch let error as DeviceFileError {
                throw CLIError(error.description)
            }
        }

        let signals = ShutdownSignal()
        // The development sandbox first (or the only one), then the production one.
        let sandboxes: [APNSSandbox]
        if both {
            sandboxes = try APNSSandbox.startBoth(
                configuration, productionDevicePort: productionPorts.device, productionManagementPort: productionPorts.management,
                productionControlPort: productionPorts.control, productionWebPushPort: productionPorts.webPush
            ).sandboxes
        } else {
            sandboxes = [try APNSSandbox.start(configuration)]
        }
        for sandbox in sandboxes { context.printError(description(of: sandbox, acceptAnyToken: configuration.acceptAnyToken)) }
        if both { context.printError(serveVariablesDescription(development: sandboxes[0], production: sandboxes[1])) }
        let fleet = deviceFile.map { attachDevices($0, to: sandboxes, context: context) }
        let printer = fleet.map { Self.printLogs(of: $0, to: context) }

        signals.wait()
        printer?.cancel()
        fleet?.detach()
        context.printError("liveline sandbox: shutting down (GOAWAY to every connection)")
        for sandbox in sandboxes.reversed() { sandbox.stop() }
        context.printError("liveline sandbox: stopped")
        return 0
    }

    /// The (development, or only) sandbox's configuration from the options; whether
    /// `--environment both` asks for a production one too.
    static func configuration(_ args: Arguments) throws -> (SandboxConfiguration, both: Bool) {
        var configuration = SandboxConfiguration(folder: URL(fileURLWithPath: args.value("data") ?? "liveline-sandbox"))
        configuration.devicePort = try args.integer("port", in: 0...65535) ?? 2197
        configuration.managementPort = try args.integer("management-port", in: 0...65535) ?? 2195
        configuration.controlPort = try args.integer("control-port", in: 0...65535) ?? 2199
        configuration.webPushPort = try args.integer("web-push-port", in: 0...65535) ?? 2198
        configuration.host = args.value("host") ?? "127.0.0.1"
        configuration.bundleID = args.value("bundle-id") ?? configuration.bundleID
        configuration.maxConcurrentStreams = UInt32(try args.integer("max-concurrent-streams", in: 1...100_000) ?? 1000)
        configuration.acceptAnyToken = args.flag("accept-any-token")
        let bound = SandboxConfiguration.boundedKept
        switch args.value("keep") {
        case "all": configuration.acceptedKept = nil
        case nil: configuration.acceptedKept = bound
        case let text?:
            guard let total = Int(text), total >= 1 else {
                throw CLIError("--keep must be all or a whole number of pushes from 1 up, not '\(text)'")
            }
            configuration.acceptedKept = (bound.perTarget, total)
        }
        configuration.threads = max(2, ProcessInfo.processInfo.activeProcessorCount)
        let both = args.value("environment") == "both"
        if let environment = args.value("environment"), !both {
            guard let value = SandboxEnvironment(rawValue: environment) else {
                throw CLIError("--environment must be development or production (or both, one of each), not '\(environment)'")
            }
            configuration.environment = value
        }
        if !both, let option = productionOptions.first(where: { args.value($0) != nil }) {
            throw CLIError("--\(option) needs --environment both")
        }
        return (configuration, both)
    }

    /// The production sandbox's ports of `--environment both`, each its own.
    static func productionPorts(
        _ args: Arguments, both: Bool, development configuration: SandboxConfiguration
    ) throws -> (device: Int, management: Int, control: Int, webPush: Int) {
        let productionPorts = (
            device: try args.integer("production-port", in: 0...65535) ?? 2297,
            management: try args.integer("production-management-port", in: 0...65535) ?? 2295,
            control: try args.integer("production-control-port", in: 0...65535) ?? 2299,
            webPush: try args.integer("production-web-push-port", in: 0...65535) ?? 2298
        )
        guard both else { return productionPorts }
        // Two push servers on one port would share it (SO_REUSEPORT), not fail: refuse it here.
        let ports = [
            ("--port", configuration.devicePort), ("--management-port", configuration.managementPort),
            ("--control-port", configuration.controlPort ?? 0), ("--web-push-port", configuration.webPushPort),
            ("--production-port", productionPorts.device), ("--production-management-port", productionPorts.management),
            ("--production-control-port", productionPorts.control), ("--production-web-push-port", productionPorts.webPush),
        ]
        for (index, (name, port)) in ports.enumerated() where port != 0 {
            if let (other, _) = ports[..<index].first(where: { $0.1 == port }) {
                throw CLIError("\(other) and \(name) are both \(port): every port of the two sandboxes needs its own number (0 picks a free one)")
            }
        }
        return productionPorts
    }

    /// The simulated iPhones of `deviceFile`, attached to the sandboxes (each to its environment's).
    static func attachDevices(_ deviceFile: DeviceFile, to sandboxes: [APNSSandbox], context: CLIContext) -> DeviceFleet {
        let both = sandboxes.count == 2
        let devices =
            both
            ? DeviceFleet(development: sandboxes[0], production: sandboxes[1], faults: deviceFile.deviceFaults)
            : DeviceFleet(sandbox: sandboxes[0], faults: deviceFile.deviceFaults)
        for configuration in deviceFile.configurations {
            let device = SimulatedDevice(configuration, rules: deviceFile.deviceRules, seed: deviceFile.seed ?? 1, registry: context.contracts)
            let token = deviceFile.devices.first { $0.id == configuration.id }?.token
            let client = token.flatMap { token in
                deviceFile.server.map { LivelineClient(baseURL: $0, bearerToken: token, deviceID: configuration.id) }
            }
            devices.add(device, client: client)
            let starts = device.startTokens.keys.sorted().map { "\($0)=\(device.startTokens[$0]!)" }.joined(separator: " ")
            let environment = both ? ", \(configuration.environment == .production ? "production" : "development") sandbox" : ""
            let widgets = device.widgetToken.map { ", widgets token \($0) (\(device.widgets.map(\.kind).joined(separator: ", ")))" } ?? ""
            context.printError(
                "  device \(device.id): iOS \(configuration.os)\(environment), alert token \(device.alertToken)\(starts.isEmpty ? "" : ", push-to-start \(starts)")\(widgets)\(client == nil ? " (app offline: no server or token)" : "")"
            )
        }
        return devices
    }

    /// Prints every new log line of every device, `device <id> <verdict> [context]: reason`.
    static func printLogs(of fleet: DeviceFleet, to context: CLIContext) -> RepeatingTimer {
        let printed = LogCursor()
        return RepeatingTimer(every: 0.2, firstAfter: 0, queue: DispatchQueue(label: "liveline-device-log")) {
            for device in fleet.devices {
                let log = device.log
                for entry in log.dropFirst(printed.count(device.id)) { context.printError("device \(device.id) \(entry)") }
                printed.set(device.id, log.count)
            }
        }
    }

    /// What a client needs, one fact per line (tests and scripts read the `key: value` lines; with
    /// two sandboxes, the development one's block comes first).
    static func description(of sandbox: APNSSandbox, acceptAnyToken: Bool) -> String {
        """
        liveline sandbox: APNs sandbox listening (\(sandbox.environment.rawValue) environment)
          environment:       \(sandbox.environment.rawValue)
          device URL:        \(sandbox.deviceURL)  (POST /3/device/<token>, POST /4/broadcasts/apps/<bundle>)
          management URL:    \(sandbox.managementURL)  (/1/apps/<bundle>/channels, /all-channels)
          control URL:       \(sandbox.controlURL ?? "none")  (JSON: /devices, /faults, /token, /reset)
          device port:       \(sandbox.devicePort)
          management port:   \(sandbox.managementPort)
          control port:      \(sandbox.controlPort.map(String.init) ?? "none")
          web push origin:   \(sandbox.webPush.origin)  (POST /push/<id>; JSON: /subscriptions, /pushes, /faults)
          web push port:     \(sandbox.webPush.port)
          CA file:           \(sandbox.certificateFile.path)
          key file (.p8):    \(sandbox.keyFile.path)
          key ID:            \(sandbox.keyID)
          team ID:           \(sandbox.teamID)
          bundle ID:         \(sandbox.bundleID)
          Live Activity topic: \(sandbox.bundleID).push-type.liveactivity
          device tokens:     \(acceptAnyToken ? "any well-formed token is accepted" : "register them first (POST /devices on the control port)")
        """
    }

    /// The `LIVELINE_APNS_*` variables of a server that pushes to both sandboxes with their one
    /// key: development is the default environment (`LIVELINE_APNS_HOST`, `_PORT`,
    /// `_MANAGEMENT_PORT`), production the other one (`LIVELINE_APNS_PRODUCTION_HOST`, `_PORT`,
    /// `_MANAGEMENT_PORT`: its channels); the names are `APNSConfiguration`'s.
    static func serveVariables(development: APNSSandbox, production: APNSSandbox) -> [(name: String, value: String)] {
        // A sandbox listening on every address is reached on the loopback one its certificate names.
        func host(_ sandbox: APNSSandbox) -> String { sandbox.host == "0.0.0.0" ? "127.0.0.1" : sandbox.host }
        return [
            ("LIVELINE_APNS_KEY_PATH", development.keyFile.path), ("LIVELINE_APNS_KEY_ID", development.keyID),
            ("LIVELINE_APNS_TEAM_ID", development.teamID), ("LIVELINE_APNS_BUNDLE_ID", development.bundleID),
            ("LIVELINE_APNS_ENVIRONMENT", "sandbox"), ("LIVELINE_APNS_HOST", host(development)),
            ("LIVELINE_APNS_PORT", String(development.devicePort)), ("LIVELINE_APNS_MANAGEMENT_PORT", String(development.managementPort)),
            ("LIVELINE_APNS_PRODUCTION_HOST", host(production)), ("LIVELINE_APNS_PRODUCTION_PORT", String(production.devicePort)),
            ("LIVELINE_APNS_PRODUCTION_MANAGEMENT_PORT", String(production.managementPort)),
            ("LIVELINE_APNS_CA_FILE", development.certificateFile.path),
        ]
    }

    /// ``serveVariables(development:production:)`` as lines a shell can run.
    static func serveVariablesDescription(development: APNSSandbox, production: APNSSandbox) -> String {
        let lines = serveVariables(development: development, production: production).map { "  export \($0.name)=\(shellQuoted($0.value))" }
        return (["liveline sandbox: a `liveline serve` (or `liveline doctor`) pushes to both with:"] + lines).joined(separator: "\n")
    }

    /// `value` as one shell word: as it is when it is plain, else in single quotes.
    static func shellQuoted(_ value: String) -> String {
        let plain = value.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "/._-:".unicodeScalars.contains($0))
        }
        return plain && !value.isEmpty ? value : "'" + value.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}

/// How many log lines of each device were printed already.
final class LogCursor: @unchecked Sendable {
    private var counts: [String: Int] = [:]
    private let lock = NSLock()
    func count(_ id: String) -> Int { lock.withLock { counts[id] ?? 0 } }
    func set(_ id: String, _ value: Int) { lock.withLock { counts[id] = value } }
}
