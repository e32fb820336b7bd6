import Foundation
import LivelineCrypto
import LivelineHTTP2
import Synchronization

/// The sandbox's behaviour, shared by its ports: routing, the APNs rules, faults and the record
/// of accepted pushes. Thread-safe: the state sits behind one lock, and ES256 verification (the
/// only slow step) happens outside it.
final class SandboxCore: Sendable {
    let environment: SandboxEnvironment
    let acceptAnyToken: Bool
    let channelQuota: Int
    let defaultBundleID: String
    let verifier = ProviderTokenVerifier()
    let state: Mutex<SandboxState>
    /// Tokens a server registered (``APNSSandbox/acceptTokens(_:)``): pushes to them are accepted
    /// as to registered devices.
    let knownTokens = Mutex<(@Sendable (String) -> Bool)?>(nil)
    /// Who is told of every accepted push (simulated devices), by id.
    let observers = Mutex<(next: UInt64, handlers: [UInt64: @Sendable (AcceptedPush) -> Void])>((0, [:]))

    /// Tells every observer of an accepted push (outside the state's lock, on the I/O thread).
    func notifyObservers(_ push: AcceptedPush) {
        let handlers = observers.withLock { Array($0.handlers.values) }
        for handler in handlers { handler(push) }
    }

    /// A provider token whose `iat` is older than this is `403 ExpiredProviderToken`.
    ///
    /// Related APNs documentation: "Establishing a token-based connection to APNs" (`docs/apns.md` §1.4).
    static let tokenLifetime: TimeInterval = 60 * 60

    init(configuration: SandboxConfiguration) {
        environment = configuration.environment
        acceptAnyToken = configuration.acceptAnyToken
        channelQuota = configuration.channelQuota
        defaultBundleID = configuration.bundleID
        var initial = SandboxState(clock: configuration.clock)
        initial.bundles.insert(configuration.bundleID)
        initial.kept = configuration.acceptedKept
        state = Mutex(initial)
    }

    var now: Date { state.withLock { $0.clock }() }

    /// What a stream's arrival means for its connection under the current faults.
    enum StreamFate {
        case proceed
        /// This stream is the N-th: answer 503 `Shutdown` and send GOAWAY.
        case goAway
        /// Close the connection without answering.
        case drop
        /// The connection already got its GOAWAY: the answer is never read, nothing is processed.
        case ended
    }

    /// Answers `request` that arrived on `port`; the answer is to be sent after `delay`.
    func answer(_ request: HTTP2Request, on port: SandboxPort) -> (response: HTTP2Response, delay: Duration?) {
        let connection = ConnectionKey(port: port, id: request.connectionID)
        // One lock for the stream's fate, the clock and what the connection's binding says.
        let (fate, delay, clock, binding) = state.withLock { state -> (StreamFate, Duration?, @Sendable () -> Date, ConnectionBinding?) in
            let latency = state.faults.latency
            guard port == .device else {
                return (.proceed, state.faults.managementLatency ?? latency, state.clock, state.connections[connection])
            }
            let faults = state.faults
            // Changed in place: the connection's key is hashed once.
            let (fate, binding) = Self.countStream(&state.connections[connection, default: ConnectionBinding()], faults: faults)
            return (fate, latency, state.clock, binding)
        }
        let route = SandboxRoute(path: request.path, port: port)
        let idName = route.idHeaderName
        let id =
            route.idHeaderName == "apns-id"
            ? (request.header("apns-id") ?? WireFormats.newID())
            : (request.header("apns-request-id").flatMap { WireFormats.isUUID($0) ? $0 : nil } ?? WireFormats.newID())
        switch fate {
        case .proceed:
            break
        case .drop:
            return (HTTP2Response(status: 500, then: .drop), nil)
        case .goAway, .ended:
            let shutdown = APNSRejection(503, .shutdown)
            let then: HTTP2Response.Then = fate == .goAway ? .goAway(errorCode: 0, debugData: shutdown.body) : .keepOpen
            return (HTTP2Response(status: 503, headers: [(idName, id)], body: shutdown.body, then: then), fate == .goAway ? delay : nil)
        }
        do throws(APNSRejection) {
            let response = try respond(to: request, route: route, connection: connection, binding: binding, id: id, clock: clock)
            return (response, delay)
        } catch {
            return (HTTP2Response(status: error.status, headers: [(idName, id)], body: error.body), delay)
        }
    }

    /// Counts a stream on the device port's `binding` and decides its fate under `faults`; returns
    /// the binding as it now is.
    private static func countStream(_ binding: inout ConnectionBinding, faults: SandboxFaults) -> (StreamFate, ConnectionBinding) {
        if binding.ended { return (.ended, binding) }
        binding.streams += 1
        if let limit = faults.dropConnectionAfterStreams, binding.streams >= limit {
            binding.ended = true
            return (.drop, binding)
        }
        if let limit = faults.goAwayAfterStreams, binding.streams >= limit {
            binding.ended = true
            return (.goAway, binding)
        }
        return (.proceed, binding)
    }

    private func respond(
        to request: HTTP2Request, route: SandboxRoute, connection: ConnectionKey, binding: ConnectionBinding?, id: String,
        clock: @Sendable () -> Date
    ) throws(APNSRejection) -> HTTP2Response {
        let allowed: Bool
        switch route {
        case .notFound: throw APNSRejection(404, .badPath)
        case .device, .broadcast: allowed = request.method == "POST"
        case .channels: allowed = request.method == "POST" || request.method == "GET" || request.method == "DELETE"
        case .allChannels: allowed = request.method == "GET"
        }
        guard allowed else { throw APNSRejection(405, .methodNotAllowed) }
        let headers = RequestHeaders(request.headers)
        guard !headers.hasDuplicates else { throw .badRequest(.duplicateHeaders) }
        let now = clock()
        try authenticate(headers, connection: connection, binding: binding, now: now)
        switch route {
        case .notFound:
            throw APNSRejection(404, .badPath)
        case .device(let token):
            return try devicePush(request, token: token, headers: headers, apnsID: id, now: now)
        case .broadcast(let bundleID):
            return try broadcast(request, bundleID: bundleID, headers: headers, requestID: id, now: now)
        case .channels(let bundleID):
            switch request.method {
            case "POST": return try createChannel(request, bundleID: bundleID, requestID: id, now: now)
            case "DELETE": return try deleteChannel(bundleID: bundleID, headers: headers, requestID: id)
            default: return try readChannel(bundleID: bundleID, headers: headers, requestID: id)
            }
        case .allChannels(let bundleID):
            return try listChannels(bundleID: bundleID, requestID: id)
        }
    }

    /// A 200 (HEADERS with END_STREAM, no DATA) naming the request, with `apns-unique-id` in
    /// development.
    ///
    /// Related APNs documentation: "Handling notification responses from APNs" (`docs/apns.md` §1.2, §1.6).
    func success(idName: String, id: String) -> HTTP2Response {
        if environment == .development {
            return HTTP2Response(status: 200, headers: [(idName, id), ("apns-unique-id", WireFormats.newID())])
        }
        return HTTP2Response(status: 200, headers: [(idName, id)])
    }

    /// The provider-token rules of every request.
    ///
    /// Related APNs documentation: "Establishing a token-based connection to APNs" (`docs/apns.md`
    /// §1.4): `403 MissingProviderToken` without one, `403 InvalidProviderToken` for a token that
    /// does not verify, `403 ExpiredProviderToken` when `iat` is more than an hour old, then the
    /// connection rules of `ConnectionBinding`.
    ///
    /// `binding` is the connection's binding as this request found it. When the request carries
    /// the very text its connection's token last verified with (and no key changed since), that
    /// token is valid without a signature check; when it is also the token the connection is bound
    /// to, the connection rules have nothing to change, so the state's lock is not taken again.
    func authenticate(_ headers: RequestHeaders, connection: ConnectionKey, binding: ConnectionBinding?, now: Date) throws(APNSRejection) {
        guard let authorization = headers["authorization"], !authorization.isEmpty else {
            throw .forbidden(.missingProviderToken)
        }
        let generation = verifier.generation
        let token: ProviderToken
        let verifiedNow: Bool
        if let verified = binding?.verified, verified.generation == generation, verified.authorization == authorization {
            token = verified.token
            verifiedNow = false
        } else {
            guard let suffix = WireFormats.suffix(of: authorization, afterCaseInsensitivePrefix: "bearer ") else {
                throw .forbidden(.invalidProviderToken)
            }
            let compact = String(suffix)
            guard !compact.isEmpty else { throw .forbidden(.missingProviderToken) }
            guard case .valid(let checked) = verifier.check(compact) else { throw .forbidden(.invalidProviderToken) }
            token = checked
            verifiedNow = true
        }
        guard now.timeIntervalSince1970 - Double(token.issuedAt) <= Self.tokenLifetime else {
            throw .forbidden(.expiredProviderToken)
        }
        // The token the connection is bound to, as last verified: `admit` would change nothing.
        if !verifiedNow, let binding, binding.keyID == token.keyID, binding.tokenIssuedAt == token.issuedAt { return }
        try state.withLock { state throws(APNSRejection) in
            var binding = state.connections[connection, default: ConnectionBinding()]
            try binding.admit(issuedAt: token.issuedAt, keyID: token.keyID, teamID: token.teamID, now: now)
            binding.verified = VerifiedToken(authorization: authorization, token: token, generation: generation)
            state.connections[connection] = binding
        }
    }

    /// Forgets accepted pushes, devices, apps but `bundleID`, channels, faults and cached tokens.
    func reset(bundleID: String) {
        state.withLock { state in
            state.bundles = [bundleID]
            state.devices = [:]
            state.channels = [:]
            state.channelOrder = [:]
            state.acceptedByToken = [:]
            state.acceptedByChannel = [:]
            state.acceptedCount = 0
            state.faults = .none
            state.faultDraws = 0
        }
        verifier.clearCache()
    }

    /// Forgets a connection's binding.
    func connectionClosed(_ connection: ConnectionKey) {
        _ = state.withLock { $0.connections.removeValue(forKey: connection) }
    }
}
