import Dispatch
import Foundation
import LivelineClient
import LivelineDevices
import LivelineSandbox

/// `liveline sandbox`: runs the APNs sandbox standalone until SIGINT or SIGTERM, and prints what
/// a client needs to use it (URLs, the CA file, the provider key and its IDs).
enum SandboxCommand: CLICommand {
    static let name = "sandbox"
    static let summary = "run the APNs sandbox (HTTP/2 + TLS, answers like APNs)"
    static let help = """
        Usage: liveline sandbox [--port N] [--management-port N] [--control-port N] [--host ADDRESS]
                                [--data DIR] [--bundle-id ID] [--max-concurrent-streams N]
                                [--environment development|production] [--accept-any-token]
                                [--devices FILE]

        Runs an APNs look-alike: device pushes (POST /3/device/<token>) and broadcast sends
        (POST /4/broadcasts/apps/<bundle>) on the device port, the channel management API
        (/1/apps/<bundle>/channels, /all-channels) on the management port, over HTTP/2 with TLS.
        It answers with Apple's status codes and reasons and checks provider tokens (ES256 JWTs)
        against the key it generates on first start. A JSON HTTP/1.1 control port registers
        device tokens, injects faults and shows what was accepted (README: "The APNs sandbox").
        On SIGINT or SIGTERM it sends GOAWAY {"reason":"Shutdown"} and exits.

        Options:
          --port N                  device port (0 picks a free one)                 [2197]
          --management-port N       channel management port                          [2195]
          --control-port N          JSON control port (HTTP/1.1)                     [2199]
          --host ADDRESS            IPv4 address to listen on                        [127.0.0.1]
          --data DIR                certificate, key and .p8 live here               [./liveline-sandbox]
          --bundle-id ID            the app whose topics are allowed                 [dev.liveline.demo]
          --max-concurrent-streams N  SETTINGS_MAX_CONCURRENT_STREAMS                [1000]
          --environment ENV         development (answers carry apns-unique-id) or production [development]
          --accept-any-token        accept pushes to tokens nobody registered (ad-hoc use, benchmarks)
          --devices FILE            attach simulated iPhones (JSON, README: "Simulated iPhones"); their
                                    tokens are registered here, their apps register with the server, and
                                    every decision they make is printed to standard error

        Device tokens must be registered through the control port unless --accept-any-token:
          curl -s -X POST http://127.0.0.1:2199/devices -H 'Content-Type: application/json' -d '{"token":"<hex>"}'
        """

    static func run(_ arguments: [String], context: CLIContext) throws -> Int32 {
        let args = try Arguments(
            arguments,
            options: ["port", "management-port", "control-port", "host", "data", "bundle-id", "max-concurrent-streams", "environment", "devices"],
            flags: ["accept-any-token"]
        )
        guard args.positionals.isEmpty else { throw CLIError("unexpected argument '\(args.positionals[0])'") }
        var configuration = SandboxConfiguration(folder: URL(fileURLWithPath: args.value("data") ?? "liveline-sandbox"))
        configuration.devicePort = try args.integer("port", in: 0...65535) ?? 2197
        configuration.managementPort = try args.integer("management-port", in: 0...65535) ?? 2195
        configuration.controlPort = try args.integer("control-port", in: 0...65535) ?? 2199
        configuration.host = args.value("host") ?? "127.0.0.1"
        configuration.bundleID = args.value("bundle-id") ?? configuration.bundleID
        configuration.maxConcurrentStreams = UInt32(try args.integer("max-concurrent-streams", in: 1...100_000) ?? 1000)
        configuration.acceptAnyToken = args.flag("accept-any-token")
        configuration.threads = max(2, ProcessInfo.processInfo.activeProcessorCount)
        if let environment = args.value("environment") {
            guard let value = SandboxEnvironment(rawValue: environment) else {
                throw CLIError("--environment must be development or production, not '\(environment)'")
            }
            configuration.environment = value
        }

        let deviceFile: DeviceFile? = try args.value("devices").map { path in
            do {
                return try DeviceFile.load(URL(fileURLWithPath: path))
            } catch let error as DeviceFileError {
                throw CLIError(error.description)
            }
        }

        let signals = ShutdownSignal()
        let sandbox = try APNSSandbox.start(configuration)
        context.printError(description(of: sandbox, acceptAnyToken: configuration.acceptAnyToken))
        var fleet: DeviceFleet?
        var printer: (any DispatchSourceTimer)?
        if let deviceFile {
            let devices = DeviceFleet(sandbox: sandbox, faults: deviceFile.deviceFaults)
            for configuration in deviceFile.configurations {
                let device = SimulatedDevice(configuration, rules: deviceFile.deviceRules, seed: deviceFile.seed ?? 1)
                let token = deviceFile.devices.first { $0.id == configuration.id }?.token
                let client = token.flatMap { token in
                    deviceFile.server.map { LivelineClient(baseURL: $0, bearerToken: token, deviceID: configuration.id) }
                }
                devices.add(device, client: client)
                let starts = device.startTokens.keys.sorted().map { "\($0)=\(device.startTokens[$0]!)" }.joined(separator: " ")
                context.printError(
                    "  device \(device.id): iOS \(configuration.os), alert token \(device.alertToken)\(starts.isEmpty ? "" : ", push-to-start \(starts)")\(client == nil ? " (app offline: no server or token)" : "")"
                )
            }
            fleet = devices
            printer = Self.printLogs(of: devices, to: context)
        }

        signals.wait()
        printer?.cancel()
        fleet?.detach()
        context.printError("liveline sandbox: shutting down (GOAWAY to every connection)")
        sandbox.stop()
        context.printError("liveline sandbox: stopped")
        return 0
    }

    /// Prints every new log line of every device, `device <id> <verdict> [context]: reason`.
    static func printLogs(of fleet: DeviceFleet, to context: CLIContext) -> any DispatchSourceTimer {
        let printed = LogCursor()
        let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "liveline-device-log"))
        timer.schedule(deadline: .now(), repeating: .milliseconds(200))
        timer.setEventHandler {
            for device in fleet.devices {
                let log = device.log
                for entry in log.dropFirst(printed.count(device.id)) { context.printError("device \(device.id) \(entry)") }
                printed.set(device.id, log.count)
            }
        }
        timer.resume()
        return timer
    }

    /// What a client needs, one fact per line (tests and scripts read the `key: value` lines).
    static func description(of sandbox: APNSSandbox, acceptAnyToken: Bool) -> String {
        """
        liveline sandbox: APNs sandbox listening (\(sandbox.environment.rawValue) environment)
          device URL:        \(sandbox.deviceURL)  (POST /3/device/<token>, POST /4/broadcasts/apps/<bundle>)
          management URL:    \(sandbox.managementURL)  (/1/apps/<bundle>/channels, /all-channels)
          control URL:       \(sandbox.controlURL ?? "none")  (JSON: /devices, /faults, /token, /reset)
          device port:       \(sandbox.devicePort)
          management port:   \(sandbox.managementPort)
          control port:      \(sandbox.controlPort.map(String.init) ?? "none")
          CA file:           \(sandbox.certificateFile.path)
          key file (.p8):    \(sandbox.keyFile.path)
          key ID:            \(sandbox.keyID)
          team ID:           \(sandbox.teamID)
          bundle ID:         \(sandbox.bundleID)
          Live Activity topic: \(sandbox.bundleID).push-type.liveactivity
          device tokens:     \(acceptAnyToken ? "any well-formed token is accepted" : "register them first (POST /devices on the control port)")
        """
    }
}

/// How many log lines of each device were printed already.
final class LogCursor: @unchecked Sendable {
    private var counts: [String: Int] = [:]
    private let lock = NSLock()
    func count(_ id: String) -> Int { lock.withLock { counts[id] ?? 0 } }
    func set(_ id: String, _ value: Int) { lock.withLock { counts[id] = value } }
}
