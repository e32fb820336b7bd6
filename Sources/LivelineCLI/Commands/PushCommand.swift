import Foundation
import LivelineModel
import LivelinePush
import LivelinePushWire
import LivelineServer

/// `liveline push`: sends one push by hand and prints APNs' answer — what Apple's Push
/// Notifications Console does, from a terminal. Live Activity payloads are checked with the
/// shared model's payload check first.
enum PushCommand: CLICommand {
    static let name = "push"
    static let summary = "send one push by hand (device token or broadcast channel) and print APNs' answer"
    static func help(_ context: CLIContext) -> String {
        """
        Usage:
          liveline push --token HEX --payload FILE [options]
          liveline push --channel ID --payload FILE [options]      (broadcast, iOS 18+)

        Sends the JSON in FILE and prints status, reason and apns-id. A liveactivity payload is
        checked first (keys and types against the contract, sizes, envelope rules); a payload the
        phone would drop is not sent (exit 1) unless --no-check.

        Push options:
          --type T              apns-push-type: liveactivity (default), alert, background, …
          --priority N          10 (default), 5 or 1
          --expiration S        apns-expiration, UNIX seconds (0: one attempt, no storage)
          --collapse-id ID      apns-collapse-id
          --apns-id UUID        apns-id (default: a new one)
          --event E             set aps.event to start, update or end (and aps.timestamp to now)
          --attributes-type T   the contract to check an update or end against
          --no-check            send without the payload check

        APNs options:
        \(APNSOptions.help)

        Exit code: 0 when APNs accepted the push, 1 when it refused it or the check failed, 2 for usage errors.
        """
    }

    static func run(_ arguments: [String], context: CLIContext) throws -> Int32 {
        let args = try Arguments(
            arguments,
            options: APNSOptions.names.union([
                "token", "channel", "payload", "type", "priority", "expiration", "collapse-id", "apns-id", "event", "attributes-type",
            ]),
            flags: ["no-check"]
        )
        guard args.positionals.isEmpty else { throw CLIError("unexpected argument '\(args.positionals[0])'") }
        let token = args.value("token")
        let channel = args.value("channel")
        guard (token == nil) != (channel == nil) else { throw CLIError("give either --token HEX or --channel ID") }
        if let token, token.isEmpty || !token.allSatisfy(\.isHexDigit) { throw CLIError("--token must be the device token in hex") }
        guard let payloadPath = args.value("payload") else { throw CLIError("--payload FILE is required") }
        var payload: Data
        do {
            payload = try Data(contentsOf: URL(fileURLWithPath: payloadPath))
        } catch {
            throw CLIError("cannot read the payload file \(payloadPath)")
        }
        let pushType = APNSPushType(rawValue: args.value("type") ?? "liveactivity")
        let priority = APNSPriority(rawValue: try args.integer("priority", in: 1...10) ?? 10)
        guard [1, 5, 10].contains(priority.rawValue) else { throw CLIError("--priority must be 10, 5 or 1") }
        let expiration = try args.integer("expiration", in: 0...Int(Int32.max)).map(APNSExpiration.init(seconds:))
        if let event = args.value("event") {
            guard ["start", "update", "end"].contains(event) else { throw CLIError("--event must be start, update or end") }
            payload = try Self.setting(event: event, in: payload)
        }

        let config = try APNSOptions.configuration(args, context: context)
        do { try config.validate() } catch let error as ConfigurationError { throw CLIError(error.message) }

        if pushType == .liveActivity && !args.flag("no-check") {
            let destination: PushDestination = channel == nil ? .device : .broadcast
            let report = PayloadCheck(destination: destination, now: Date(), registry: context.contracts).check(
                json: payload, typeName: args.value("attributes-type"))
            if !report.isAccepted {
                context.print(report.text(file: payloadPath, destination: destination))
                context.printError("not sent: the payload check failed (--no-check sends it anyway)")
                return 1
            }
        }

        let body = Array(payload)
        let collapseID = args.value("collapse-id")
        let apnsID = args.value("apns-id")
        let client = try APNSClient(
            configuration: APNSClientConfiguration(
                credentials: try config.credentials(), environment: config.apnsEnvironment, maxConnectionsPerEndpoint: 1
            ))
        defer { client.shutdown() }
        let result = Self.wait { done in
            if let channel {
                client.broadcast(
                    APNSBroadcast(
                        bundleID: config.bundleID, channelID: channel, priority: priority, expiration: expiration ?? .immediately, payload: body
                    ), completion: done)
                return
            }
            var notification = APNSNotification(
                deviceToken: token!.lowercased(), pushType: pushType, topic: pushType.topic(bundleID: config.bundleID),
                priority: priority, expiration: expiration, collapseID: collapseID, payload: body
            )
            if let apnsID { notification.apnsID = apnsID }
            client.send(notification, completion: done)
        }
        let endpoint = channel == nil ? config.apnsEnvironment.device : config.apnsEnvironment.broadcast
        context.print("sent to \(endpoint) (\(pushType.rawValue), priority \(priority.rawValue))")
        context.print("status:   \(result.summary)")
        if let timestamp = result.timestamp { context.print("since:    \(timestamp) (the token stopped being valid)") }
        if let id = result.apnsID { context.print("apns-id:  \(id)") }
        if let id = result.uniqueID { context.print("apns-unique-id: \(id)") }
        if let id = result.requestID { context.print("apns-request-id: \(id)") }
        context.print("outcome:  \(result.outcome)")
        return result.outcome == .delivered ? 0 : 1
    }

    /// Sets `aps.event` and, when it had none, `aps.timestamp` to now.
    static func setting(event: String, in payload: Data) throws -> Data {
        guard var object = try? JSONSerialization.jsonObject(with: payload) as? [String: Any], var aps = object["aps"] as? [String: Any] else {
            throw CLIError("--event needs a payload that is a JSON object with an aps object")
        }
        aps["event"] = event
        if aps["timestamp"] == nil { aps["timestamp"] = Int(Date().timeIntervalSince1970) }
        object["aps"] = aps
        return try JSONSerialization.data(withJSONObject: object)
    }

    /// Starts `work` and waits for the answer it hands to `done` (on the client's I/O thread).
    /// Blocking on a semaphore, not on a Swift task: a task would need a thread of the
    /// cooperative pool, which this caller may be occupying.
    static func wait<T: Sendable>(_ work: (_ done: @escaping @Sendable (T) -> Void) -> Void) -> T {
        let box = ResultBox<T>()
        let finished = DispatchSemaphore(value: 0)
        work { value in
            box.value = value
            finished.signal()
        }
        finished.wait()
        return box.value!
    }
}
