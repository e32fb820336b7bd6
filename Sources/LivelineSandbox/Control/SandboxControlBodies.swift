import Foundation

/// The JSON bodies of the control API (camelCase keys, dates as ISO 8601 plus milliseconds).
enum SandboxControlBodies {
    struct RegisterDevice: Codable {
        var token: String
        var bundleId: String?
    }

    struct Device: Codable {
        var token: String
        var bundleId: String?
        var status: String
        /// For `unregistered`/`expired`: the 410 timestamp, ms since 1970.
        var timestamp: Int64?
    }

    /// `{"at": <ms since 1970>}`; without it, the sandbox clock's now.
    struct MarkDevice: Codable {
        var at: Int64?
    }

    struct Faults: Codable {
        var seed: UInt64?
        var internalErrorShare: Double?
        var unavailableShare: Double?
        var tooManyRequestsShare: Double?
        var latencyMs: Int?
        var managementLatencyMs: Int?
        var goAwayAfterStreams: Int?
        var dropConnectionAfterStreams: Int?

        init(_ faults: SandboxFaults) {
            seed = faults.seed
            internalErrorShare = faults.internalErrorShare
            unavailableShare = faults.unavailableShare
            tooManyRequestsShare = faults.tooManyRequestsShare
            latencyMs = faults.latency.map(Self.milliseconds)
            managementLatencyMs = faults.managementLatency.map(Self.milliseconds)
            goAwayAfterStreams = faults.goAwayAfterStreams
            dropConnectionAfterStreams = faults.dropConnectionAfterStreams
        }

        var faults: SandboxFaults {
            SandboxFaults(
                seed: seed ?? 1, internalErrorShare: internalErrorShare ?? 0, unavailableShare: unavailableShare ?? 0,
                tooManyRequestsShare: tooManyRequestsShare ?? 0, latency: latencyMs.map { .milliseconds($0) },
                managementLatency: managementLatencyMs.map { .milliseconds($0) }, goAwayAfterStreams: goAwayAfterStreams,
                dropConnectionAfterStreams: dropConnectionAfterStreams
            )
        }

        static func milliseconds(_ duration: Duration) -> Int {
            Int(duration.components.seconds * 1000 + duration.components.attoseconds / 1_000_000_000_000_000)
        }
    }

    struct Push: Codable {
        var apnsId: String
        var pushType: String
        var topic: String?
        var priority: Int
        var expiration: Int?
        var collapseId: String?
        /// The body as text (pushes are JSON), and byte for byte in base64.
        var payload: String
        var payloadBase64: String
        var receivedAt: Date
        var receivedAtMs: Int64
        var token: String?
        var channelId: String?
        var connectionId: UInt64

        init(_ push: AcceptedPush) {
            apnsId = push.apnsID
            pushType = push.pushType
            topic = push.topic
            priority = push.priority
            expiration = push.expiration
            collapseId = push.collapseID
            payload = push.payloadText
            payloadBase64 = Data(push.payload).base64EncodedString()
            receivedAt = push.receivedAt
            receivedAtMs = Int64((push.receivedAt.timeIntervalSince1970 * 1000).rounded(.down))
            token = push.token
            channelId = push.channelID
            connectionId = push.connectionID
        }
    }

    struct Pushes: Codable {
        var pushes: [Push]
    }

    struct Channels: Codable {
        var channels: [String]
    }

    struct Token: Codable {
        var token: String
        var authorization: String
    }

    struct Done: Codable {
        var ok = true
    }
}
