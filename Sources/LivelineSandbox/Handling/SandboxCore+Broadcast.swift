import Foundation
import LivelineHTTP2
import LivelinePush
import LivelinePushWire

extension SandboxCore {
    /// The largest broadcast body.
    ///
    /// Related APNs documentation (`docs/apns.md` §1.5, §1.8): 5120 bytes, `413 PayloadTooLarge` above.
    static let maxBroadcastBytes = 5120

    /// `POST /4/broadcasts/apps/<bundleID>`, after authentication.
    ///
    /// Related APNs documentation: "Sending broadcast push notification requests to APNs" and
    /// "Handling error responses from APNs" (`docs/apns.md` §1.8). In order:
    /// - the app: a push-type suffix on the bundle ID → `400 TopicDisallowed`; an app the sandbox
    ///   does not know → `403 TopicMismatch`;
    /// - `apns-topic` may be omitted (Apple's samples) or be the bundle ID with or without
    ///   `.push-type.liveactivity` (third-party clients differ); anything else → `400 TopicDisallowed`;
    /// - `apns-push-type`: none → `400 MissingPushType`; not `liveactivity` (any case) → `400 InvalidPushType`;
    /// - `apns-id`, when sent, not a UUID → `400 BadMessageId`;
    /// - `apns-channel-id`: none → `400 MissingChannelId`; not base64 → `400 BadChannelId`;
    /// - `apns-priority` not 1, 5 or 10 → `400 BadPriority`;
    /// - `apns-expiration` not a non-negative integer → `400 BadExpirationDate`;
    /// - the body: empty → `400 PayloadEmpty`; over 5120 bytes → `413 PayloadTooLarge`; not a JSON
    ///   object → `400 BadRequestPayload`;
    /// - the channel: unknown for this app → `400 ChannelNotRegistered`; a no-storage channel
    ///   (policy 0) with a non-zero `apns-expiration` → `400 BadExpirationDate`.
    /// Answers carry `apns-request-id` (echoed, or generated), not `apns-id`.
    func broadcast(
        _ request: HTTP2Request, bundleID: String, headers: RequestHeaders, requestID: String, now: Date
    ) throws(APNSRejection) -> HTTP2Response {
        try checkBroadcastApp(bundleID)
        if let topic = headers["apns-topic"], topic != bundleID, topic != bundleID + ".push-type.liveactivity" {
            throw .badRequest(.topicDisallowed)
        }
        guard let pushType = headers["apns-push-type"], !pushType.isEmpty else { throw .badRequest(.missingPushType) }
        guard pushType.lowercased() == APNSPushType.liveActivity.rawValue else { throw .badRequest(.invalidPushType) }
        if let sent = headers["apns-id"], !WireFormats.isUUID(sent) { throw .badRequest(.badMessageID) }
        let channelID = try Self.channelID(headers)
        let priority: Int
        if let sent = headers["apns-priority"] {
            guard let value = Int(sent), [1, 5, 10].contains(value) else { throw .badRequest(.badPriority) }
            priority = value
        } else {
            priority = 10
        }
        let expiration = try Self.expiration(headers)
        guard !request.body.isEmpty else { throw .badRequest(.payloadEmpty) }
        guard request.body.count <= Self.maxBroadcastBytes else { throw APNSRejection(413, .payloadTooLarge) }
        guard (try? JSONSerialization.jsonObject(with: Data(request.body))) is [String: Any] else {
            throw .badRequest(.badRequestPayload)
        }
        let accepted = AcceptedPush(
            apnsID: requestID, pushType: APNSPushType.liveActivity.rawValue, topic: headers["apns-topic"],
            priority: priority, expiration: expiration, collapseID: headers["apns-collapse-id"], payload: request.body,
            receivedAt: now, token: nil, channelID: channelID, connectionID: request.connectionID
        )
        try state.withLock { state throws(APNSRejection) in
            guard let channel = state.channels[channelID], channel.bundleID == bundleID else {
                throw .badRequest(.channelNotRegistered)
            }
            if channel.storagePolicy == 0, let expiration, expiration != 0 { throw .badRequest(.badExpirationDate) }
            if let fault = state.drawFault() { throw fault }
            state.record(accepted)
        }
        notifyObservers(accepted)
        return success(idName: "apns-request-id", id: requestID)
    }

    /// The app of a broadcast or channel request.
    ///
    /// Related APNs documentation (`docs/apns.md` §1.8): `400 TopicDisallowed` ("do not add a push
    /// type suffix to the bundle ID"); an app outside the token's team is an authentication
    /// problem, `403 TopicMismatch`.
    func checkBroadcastApp(_ bundleID: String) throws(APNSRejection) {
        if bundleID.contains(".push-type.") { throw .badRequest(.topicDisallowed) }
        guard state.withLock({ $0.bundles.contains(bundleID) }) else { throw .forbidden(.topicMismatch) }
    }

    /// `apns-channel-id`.
    ///
    /// Related APNs documentation (`docs/apns.md` §1.8): none → `400 MissingChannelId`; badly
    /// encoded or too long → `400 BadChannelId`.
    static func channelID(_ headers: RequestHeaders) throws(APNSRejection) -> String {
        guard let channelID = headers["apns-channel-id"], !channelID.isEmpty else { throw .badRequest(.missingChannelID) }
        guard WireFormats.isChannelID(channelID) else { throw .badRequest(.badChannelID) }
        return channelID
    }
}
