import Foundation
import LivelineCrypto
import LivelineHTTP
import LivelineModel

/// The JSON HTTP/1.1 control API, for processes that cannot call the Swift API: register tokens,
/// mark them unregistered or expired, set faults, read accepted pushes, mint a provider token,
/// reset. The routes are listed in docs/sandbox.md.
enum SandboxControlAPI {
    /// What `GET /sandbox` reports.
    struct Info: Codable, Sendable {
        var host: String
        var devicePort: Int
        var managementPort: Int
        var certificateFile: String
        var keyFile: String
        var keyID: String
        var teamID: String
        var bundleID: String
        var environment: String
        /// The Web Push service (`APNSSandbox.webPush`): its origin, and its port, where its own
        /// control API is (docs/sandbox.md, "Web push service").
        var webPushOrigin: String
        var webPushPort: Int
        var acceptedCount: Int?
    }

    static let info = Route(.get, "/sandbox")
    static let registerDevice = Route(.post, "/devices")
    static let markUnregistered = Route(.post, "/devices/{token}/unregistered")
    static let markExpired = Route(.post, "/devices/{token}/expired")
    static let devicePushes = Route(.get, "/devices/{token}/pushes")
    static let channels = Route(.get, "/channels")
    static let channelPushes = Route(.get, "/channels/{channel}/pushes")
    static let readFaults = Route(.get, "/faults")
    static let setFaults = Route(.put, "/faults")
    static let clearFaults = Route(.delete, "/faults")
    static let token = Route(.post, "/token")
    static let reset = Route(.post, "/reset")

    static func router(core: SandboxCore, info: Info, signingKey: ES256PrivateKey) -> Router {
        var router = Router()
        router.add(Self.info) { _ in
            var current = info
            current.acceptedCount = core.state.withLock { $0.acceptedCount }
            return try .json(current)
        }
        addDeviceRoutes(to: &router, core: core, info: info)
        addFaultRoutes(to: &router, core: core)
        router.add(token) { _ in
            let compact = try ProviderToken.sign(
                keyID: info.keyID, teamID: info.teamID, issuedAt: Int(core.now.timeIntervalSince1970), key: signingKey
            ).compact
            return try .json(SandboxControlBodies.Token(token: compact, authorization: "bearer " + compact))
        }
        router.add(reset) { _ in
            core.reset(bundleID: info.bundleID)
            return try .json(SandboxControlBodies.Done())
        }
        return router
    }

    /// Devices (registered, unregistered, expired) and what was accepted for each device and channel.
    private static func addDeviceRoutes(to router: inout Router, core: SandboxCore, info: Info) {
        router.add(registerDevice) { request in
            let body = try request.decode(SandboxControlBodies.RegisterDevice.self)
            guard WireFormats.isDeviceToken(body.token) else {
                throw HTTPError.badRequest("token must be an even number of hex digits", field: "token")
            }
            let bundle = body.bundleId ?? info.bundleID
            guard WireFormats.isTopic(bundle) else { throw HTTPError.badRequest("bundleId is not a bundle ID", field: "bundleId") }
            core.state.withLock { state in
                state.bundles.insert(bundle)
                state.devices[body.token.lowercased()] = DeviceRecord(bundleID: bundle, status: .active)
            }
            return try .json(SandboxControlBodies.Device(token: body.token.lowercased(), bundleId: bundle, status: "active"), status: 201)
        }
        for (route, expired) in [(markUnregistered, false), (markExpired, true)] {
            router.add(route) { request in
                let token = try request.parameter("token").lowercased()
                guard WireFormats.isDeviceToken(token) else { throw HTTPError.badRequest("token must be hex digits", field: "token") }
                let body = request.body.isEmpty ? SandboxControlBodies.MarkDevice() : try request.decode(SandboxControlBodies.MarkDevice.self)
                let at = body.at.map { Date(timeIntervalSince1970: Double($0) / 1000) } ?? core.now
                let record = core.state.withLock { state -> DeviceRecord in
                    var record = state.devices[token] ?? DeviceRecord(bundleID: info.bundleID, status: .active)
                    record.status = expired ? .expired(at) : .unregistered(at)
                    state.devices[token] = record
                    return record
                }
                return try .json(
                    SandboxControlBodies.Device(
                        token: token, bundleId: record.bundleID, status: expired ? "expired" : "unregistered",
                        timestamp: Int64((at.timeIntervalSince1970 * 1000).rounded(.down))
                    ))
            }
        }
        router.add(devicePushes) { request in
            let token = try request.parameter("token").lowercased()
            let pushes = core.state.withLock { $0.acceptedByToken[token] ?? [] }
            return try .json(SandboxControlBodies.Pushes(pushes: pushes.map(SandboxControlBodies.Push.init)))
        }
        router.add(channels) { request in
            let bundle = request.query["bundleId"] ?? info.bundleID
            return try .json(SandboxControlBodies.Channels(channels: core.state.withLock { $0.channelOrder[bundle] ?? [] }))
        }
        router.add(channelPushes) { request in
            let channel = standardBase64(try request.parameter("channel"))
            let pushes = core.state.withLock { $0.acceptedByChannel[channel] ?? [] }
            return try .json(SandboxControlBodies.Pushes(pushes: pushes.map(SandboxControlBodies.Push.init)))
        }
    }

    /// The faults the sandbox plays: read, set (checked) and cleared.
    private static func addFaultRoutes(to router: inout Router, core: SandboxCore) {
        router.add(readFaults) { _ in
            try .json(SandboxControlBodies.Faults(core.state.withLock { $0.faults }))
        }
        router.add(setFaults) { request in
            let body = try request.decode(SandboxControlBodies.Faults.self)
            for (name, share) in [
                ("internalErrorShare", body.internalErrorShare), ("unavailableShare", body.unavailableShare),
                ("tooManyRequestsShare", body.tooManyRequestsShare),
            ] {
                if let share, !(0...1).contains(share) { throw HTTPError.badRequest("\(name) must be from 0 to 1", field: name) }
            }
            for (name, count) in [
                ("goAwayAfterStreams", body.goAwayAfterStreams), ("dropConnectionAfterStreams", body.dropConnectionAfterStreams),
                ("latencyMs", body.latencyMs), ("managementLatencyMs", body.managementLatencyMs),
            ] {
                if let count, count < (name.hasSuffix("atencyMs") ? 0 : 1) { throw HTTPError.badRequest("\(name) is out of range", field: name) }
            }
            let faults = body.faults
            core.state.withLock {
                $0.faults = faults
                $0.faultDraws = 0
            }
            return try .json(SandboxControlBodies.Faults(faults))
        }
        router.add(clearFaults) { _ in
            core.state.withLock {
                $0.faults = .none
                $0.faultDraws = 0
            }
            return try .json(SandboxControlBodies.Faults(.none))
        }
    }

    /// A channel ID as sent in a URL: base64url (`-`, `_`, no padding) or standard base64 become
    /// standard base64 with padding.
    static func standardBase64(_ text: String) -> String {
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard = standard.replacingOccurrences(of: "=", with: "")
        while standard.count % 4 != 0 { standard += "=" }
        return standard
    }
}
