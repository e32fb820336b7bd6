import Foundation
import LivelineCrypto
import LivelineHTTP2
import LivelineModel
import LivelinePushWire
import LivelineScheduling
import Synchronization

/// Sends pushes to APNs (or to a sandbox speaking its protocol) over HTTP/2 with token auth.
///
/// Transport: a client on libnghttp2 (shared with the sandbox's server) driven by our own epoll
/// loop, not libcurl's multi interface, whose per-request CPU cost bounded one connection and
/// whose Debian build cannot do h2c (docs/decisions/apns-client-on-libnghttp2.md).
///
/// What it takes care of: the provider token (signed once, renewed every 50 minutes, rotated once
/// on `ExpiredProviderToken`), the first request of a connection going alone, the server's stream
/// limit, connections replaced after GOAWAY, `Shutdown` or a drop — a request lost with its
/// connection is sent again with the same `apns-id` — idle PINGs, and a connection that goes
/// silent with requests in flight (a dead path) PINGed and replaced (`livenessTimeout`). What it leaves to the
/// caller: retrying what APNs asked to retry later (5xx, 429; see `APNSOutcome` and
/// `send(_:retrying:)`).
public final class APNSClient: Sendable {
    public let configuration: APNSClientConfiguration
    public let tokens: ProviderTokenSource
    private let loop: EventLoop
    private let devicePool: APNSConnectionPool
    private let broadcastPool: APNSConnectionPool
    private let managementPool: APNSConnectionPool
    private let pinger = Mutex<RepeatingTimer?>(nil)
    private let isShutDown = Atomic<Bool>(false)

    public init(configuration: APNSClientConfiguration) throws {
        self.configuration = configuration
        tokens = ProviderTokenSource(credentials: configuration.credentials, clock: configuration.clock)
        let loop = try EventLoop(name: "apns-client")
        self.loop = loop
        let environment = configuration.environment
        let pool = { (endpoint: APNSEndpoint) in
            APNSConnectionPool(
                endpoint: endpoint, loop: loop, maxConnections: configuration.maxConnectionsPerEndpoint,
                connectTimeout: configuration.connectTimeout, livenessTimeout: configuration.livenessTimeout
            )
        }
        devicePool = pool(environment.device)
        broadcastPool = environment.broadcast == environment.device ? devicePool : pool(environment.broadcast)
        managementPool = pool(environment.management)
        startPinging()
    }

    // MARK: Device pushes

    /// Sends one device push; `completion` gets APNs' answer (on the client's I/O thread: keep it short).
    public func send(_ notification: APNSNotification, completion: @escaping @Sendable (APNSResult) -> Void) {
        let request = HTTP2ClientRequest(
            method: "POST", path: "/3/device/\(notification.deviceToken)", headers: notification.headers, body: notification.payload
        )
        perform(request, on: devicePool, attempt: 1, rotated: false, started: .now) { result in
            var result = result
            if result.apnsID == nil { result.apnsID = notification.apnsID }
            completion(result)
        }
    }

    /// Sends one device push and waits for APNs' answer.
    public func send(_ notification: APNSNotification) async -> APNSResult {
        await withCheckedContinuation { continuation in send(notification) { continuation.resume(returning: $0) } }
    }

    /// Sends one device push, and again after backoff while APNs says to retry, up to the policy's
    /// attempts. Returns the last answer.
    public func send(_ notification: APNSNotification, retrying policy: RetryPolicy) async -> APNSResult {
        var attempt = 1
        while true {
            var result = await send(notification)
            if case .retry = result.outcome, attempt < policy.maximumAttempts {
                try? await Task.sleep(for: policy.delay(beforeRetry: attempt))
                attempt += 1
                continue
            }
            result.attempts = max(result.attempts, attempt)
            return result
        }
    }

    // MARK: Broadcast and channels

    /// Sends a broadcast push to a channel; `completion` gets APNs' answer.
    public func broadcast(_ broadcast: APNSBroadcast, completion: @escaping @Sendable (APNSResult) -> Void) {
        let request = HTTP2ClientRequest(
            method: "POST", path: "/4/broadcasts/apps/\(broadcast.bundleID)", headers: broadcast.headers, body: broadcast.payload
        )
        perform(request, on: broadcastPool, attempt: 1, rotated: false, started: .now, completion: completion)
    }

    /// Sends a broadcast push to a channel and waits for APNs' answer.
    public func broadcast(_ broadcast: APNSBroadcast) async -> APNSResult {
        await withCheckedContinuation { continuation in self.broadcast(broadcast) { continuation.resume(returning: $0) } }
    }

    /// Creates a channel; its id is `channelID` of the result (201).
    public func createChannel(
        bundleID: String, storagePolicy: APNSChannelStoragePolicy = .mostRecentMessageStored,
        completion: @escaping @Sendable (APNSResult) -> Void
    ) {
        let body = #"{"message-storage-policy":\#(storagePolicy.rawValue),"push-type":"LiveActivity"}"#
        let request = HTTP2ClientRequest(
            method: "POST", path: "/1/apps/\(bundleID)/channels",
            headers: [("apns-request-id", UUID().uuidString.lowercased())], body: Array(body.utf8)
        )
        perform(request, on: managementPool, attempt: 1, rotated: false, started: .now, completion: completion)
    }

    public func createChannel(bundleID: String, storagePolicy: APNSChannelStoragePolicy = .mostRecentMessageStored) async -> APNSResult {
        await withCheckedContinuation { continuation in
            createChannel(bundleID: bundleID, storagePolicy: storagePolicy) { continuation.resume(returning: $0) }
        }
    }

    /// Reads a channel's configuration (200, the JSON in `body`).
    public func readChannel(bundleID: String, channelID: String) async -> APNSResult {
        await perform(
            HTTP2ClientRequest(method: "GET", path: "/1/apps/\(bundleID)/channels", headers: [("apns-channel-id", channelID)]), on: managementPool)
    }

    /// Deletes a channel (204).
    public func deleteChannel(bundleID: String, channelID: String, completion: @escaping @Sendable (APNSResult) -> Void) {
        let request = HTTP2ClientRequest(method: "DELETE", path: "/1/apps/\(bundleID)/channels", headers: [("apns-channel-id", channelID)])
        perform(request, on: managementPool, attempt: 1, rotated: false, started: .now, completion: completion)
    }

    public func deleteChannel(bundleID: String, channelID: String) async -> APNSResult {
        await withCheckedContinuation { continuation in
            deleteChannel(bundleID: bundleID, channelID: channelID) { continuation.resume(returning: $0) }
        }
    }

    /// Lists the app's channels; nil channels when the answer was not a 200 with a list.
    public func listChannels(bundleID: String, completion: @escaping @Sendable (_ channels: [String]?, _ result: APNSResult) -> Void) {
        perform(
            HTTP2ClientRequest(method: "GET", path: "/1/apps/\(bundleID)/all-channels"), on: managementPool, attempt: 1, rotated: false, started: .now
        ) { result in
            struct List: Decodable { var channels: [String] }
            let list = result.status == 200 ? try? JSONDecoder().decode(List.self, fromUntrusted: Data(result.body)) : nil
            completion(list?.channels, result)
        }
    }

    public func listChannels(bundleID: String) async -> (channels: [String]?, result: APNSResult) {
        await withCheckedContinuation { continuation in
            listChannels(bundleID: bundleID) { channels, result in continuation.resume(returning: (channels, result)) }
        }
    }

    /// Closes every connection; requests in flight fail.
    public func shutdown() {
        guard !isShutDown.exchange(true, ordering: .relaxed) else { return }
        pinger.withLock { $0?.cancel() }
        devicePool.closeAll()
        broadcastPool.closeAll()
        managementPool.closeAll()
        loop.stop()
    }

    /// Connections open or opening, per endpoint.
    public var connectionCounts: (device: Int, broadcast: Int, management: Int) {
        (devicePool.count, broadcastPool.count, managementPool.count)
    }

    // MARK: The request path

    private func perform(_ request: HTTP2ClientRequest, on pool: APNSConnectionPool) async -> APNSResult {
        await withCheckedContinuation { continuation in
            perform(request, on: pool, attempt: 1, rotated: false, started: .now) { continuation.resume(returning: $0) }
        }
    }

    /// Sends `request` with the current provider token on a connection of `pool`; sends it again,
    /// unchanged, when its connection failed under it, and once with a new token after
    /// `ExpiredProviderToken`.
    private func perform(
        _ request: HTTP2ClientRequest, on pool: APNSConnectionPool, attempt: Int, rotated: Bool, started: ContinuousClock.Instant,
        completion: @escaping @Sendable (APNSResult) -> Void
    ) {
        let now = configuration.clock()
        let notAfter = configuration.requestDeadline.map { started + .milliseconds(Int($0 * 1000)) }
        if attempt > 1, let notAfter, ContinuousClock.now > notAfter {
            completion(
                APNSResult(
                    status: 0, transportError: "lost with its connection, and not sent again past its deadline", attempts: attempt - 1,
                    latency: .now - started, outcome: .retry(newConnection: true)))
            return
        }
        let token: ProviderToken
        let connection: APNSConnection
        do {
            token = try tokens.token()
            connection = try pool.connection(for: token, now: now)
        } catch {
            completion(APNSResult(status: 0, transportError: "\(error)", attempts: attempt, latency: .now - started, outcome: .permanent))
            return
        }
        let signed = HTTP2ClientRequest(
            method: request.method, path: request.path, authority: request.authority,
            headers: request.headers + [("authorization", "bearer \(token.compact)")], body: request.body, notAfter: notAfter
        )
        let retries = configuration.connectionRetries
        connection.whenReady(token: token, now: now) { [self] isFirst in
            connection.http.send(signed) { [self] result in
                if isFirst { connection.firstAnswered() }
                switch result {
                case .success(let response):
                    let (reason, timestamp) = APNSErrorBody.parse(response.status >= 300 ? response.body : [])
                    let outcome = APNSOutcome.classify(status: response.status, reason: reason, timestamp: timestamp)
                    if outcome == .rotateToken, !rotated, (try? tokens.rotate(after: token)) != nil {
                        perform(request, on: pool, attempt: attempt + 1, rotated: true, started: started, completion: completion)
                        return
                    }
                    // `Shutdown` (and an unrelated key) mean: not taken here, go elsewhere now. A burst
                    // can meet several in a row, so this too gets more tries than a lost request.
                    if case .retry(newConnection: true) = outcome, attempt <= retries * 5 {
                        connection.retire()
                        perform(request, on: pool, attempt: attempt + 1, rotated: rotated, started: started, completion: completion)
                        return
                    }
                    completion(
                        APNSResult(
                            status: response.status, reason: reason, timestamp: timestamp, apnsID: response.header("apns-id"),
                            uniqueID: response.header("apns-unique-id"), requestID: response.header("apns-request-id"),
                            channelID: response.header("apns-channel-id"), body: response.body, attempts: attempt,
                            latency: .now - started, outcome: outcome
                        ))
                case .failure(let failure):
                    connection.retire()
                    // A request the server never processed (refused stream, above a GOAWAY's last
                    // stream) is free to send again and may meet several GOAWAYs in a burst: it
                    // gets more tries than one lost in flight.
                    let limit = failure.kind == .notProcessed ? retries * 5 : retries
                    if attempt <= limit {
                        // The same request again (same apns-id) on another connection: APNs either
                        // never saw it or the device ignores the duplicate's older timestamp.
                        let backoff = min(0.5, Double(attempt - 1) * 0.02)
                        Scheduler.after(backoff) { [self] in
                            perform(request, on: pool, attempt: attempt + 1, rotated: rotated, started: started, completion: completion)
                        }
                        return
                    }
                    completion(
                        APNSResult(
                            status: 0, transportError: failure.message, attempts: attempt, latency: .now - started,
                            outcome: .retry(newConnection: true)
                        ))
                }
            }
        }
    }

    // MARK: Idle PINGs

    private func startPinging() {
        let interval = configuration.idlePingInterval
        guard interval > 0 else { return }
        let timer = RepeatingTimer(every: min(interval, 60)) { [weak self] in self?.pingIdleConnections() }
        pinger.withLock { $0 = timer }
    }

    /// PINGs each connection idle for `idlePingInterval`; one that does not answer is retired.
    public func pingIdleConnections() {
        let cutoff = configuration.clock().addingTimeInterval(-configuration.idlePingInterval)
        for pool in [devicePool, broadcastPool, managementPool] {
            for connection in pool.idle(since: cutoff) {
                connection.http.ping { answered in
                    if !answered { connection.retire() }
                }
            }
        }
    }
}

extension APNSClient: PushSender {}
