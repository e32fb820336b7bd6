import Foundation
import LivelineHTTP2
import LivelineModel
import LivelinePush
import LivelinePushWire

extension SandboxCore {
    /// `POST /3/device/<token>`, after authentication.
    ///
    /// Related APNs documentation: "Sending notification requests to APNs" and "Handling
    /// notification responses from APNs" (`docs/apns.md` §1.2, §1.3, §1.5, §1.6). Checked in this
    /// order, each failure with Apple's status and reason:
    /// - the token: none → `400 MissingDeviceToken`; not hex → `400 BadDeviceToken`;
    /// - `apns-id` not a UUID → `400 BadMessageId`;
    /// - `apns-push-type` not one Apple lists → `400 InvalidPushType` (none: the type the topic implies);
    /// - `apns-topic`: none → `400 MissingTopic`; malformed → `400 BadTopic`; not the bundle ID plus
    ///   the push type's suffix (e.g. `<bundle>.push-type.liveactivity`), or an app the sandbox does
    ///   not know → `400 TopicDisallowed` (what APNs answers a VoIP push to the bare bundle ID);
    /// - `apns-priority` not 1, 5 or 10, 10 on `background`, or not 5/10 on `liveactivity` → `400 BadPriority`;
    /// - `apns-expiration` not a non-negative integer → `400 BadExpirationDate`;
    /// - `apns-collapse-id` over 64 bytes → `400 BadCollapseId`;
    /// - the body: empty → `400 PayloadEmpty`; over 4096 bytes (5120 for VoIP) → `413 PayloadTooLarge`;
    ///   a `widgets` push's not a JSON object whose `aps.content-changed` is `true` → `400
    ///   BadRequestPayload` (``widgetsPayloadIsValid(_:)``);
    /// - the token's record: unknown → `400 BadDeviceToken` (unless `acceptAnyToken`); registered
    ///   for another app → `400 DeviceTokenNotForTopic`; unregistered or expired → `410 Unregistered`
    ///   / `410 ExpiredToken` with the `timestamp` (ms) it stopped being valid.
    func devicePush(
        _ request: HTTP2Request, token rawToken: String, headers: RequestHeaders, apnsID: String, now: Date
    ) throws(APNSRejection) -> HTTP2Response {
        guard !rawToken.isEmpty else { throw .badRequest(.missingDeviceToken) }
        guard let token = WireFormats.lowerCaseDeviceToken(rawToken) else { throw .badRequest(.badDeviceToken) }
        if let sent = headers["apns-id"], !WireFormats.isUUID(sent) { throw .badRequest(.badMessageID) }

        guard let topic = headers["apns-topic"], !topic.isEmpty else { throw .badRequest(.missingTopic) }
        let pushType: APNSPushType
        // One look-up for both `isKnown` and `topicSuffix` (no suffix for `mdm`).
        let listedSuffix: String?
        if let sent = headers["apns-push-type"] {
            pushType = APNSPushType(rawValue: sent.lowercased())
            listedSuffix = APNSPushType.topicSuffixes[pushType]
            guard listedSuffix != nil else { throw .badRequest(.invalidPushType) }
        } else {
            pushType = APNSPushType.implied(byTopic: topic)
            listedSuffix = APNSPushType.topicSuffixes[pushType]
        }
        guard WireFormats.isTopic(topic) else { throw .badRequest(.badTopic) }
        var bundleID: String?
        if pushType != .mdm, let suffix = listedSuffix {
            // The topic is ASCII now (`isTopic`): its bytes are its characters.
            guard let bundle = WireFormats.prefix(of: topic, beforeSuffix: suffix) else { throw .badRequest(.topicDisallowed) }
            // A bare-bundle type (alert, background) must not carry another type's suffix.
            if suffix.isEmpty, APNSPushType.implied(byTopic: topic) != .alert { throw .badRequest(.topicDisallowed) }
            bundleID = bundle
        }

        let priority: Int
        if let sent = headers["apns-priority"] {
            guard let value = Int(sent), value == 1 || value == 5 || value == 10 else { throw .badRequest(.badPriority) }
            priority = value
        } else {
            priority = pushType == .background ? 5 : 10
        }
        if pushType == .liveActivity && priority == 1 { throw .badRequest(.badPriority) }
        if pushType == .background && priority == 10 { throw .badRequest(.badPriority) }

        let expiration = try Self.expiration(headers)
        let collapseID = headers["apns-collapse-id"]
        if let collapseID, collapseID.utf8.count > 64 { throw .badRequest(.badCollapseID) }
        guard !request.body.isEmpty else { throw .badRequest(.payloadEmpty) }
        guard request.body.count <= pushType.maxPayloadBytes else { throw APNSRejection(413, .payloadTooLarge) }
        if pushType == .widgets, !Self.widgetsPayloadIsValid(request.body) { throw .badRequest(.badRequestPayload) }

        let accepted = AcceptedPush(
            apnsID: apnsID, pushType: pushType.rawValue, topic: topic, priority: priority, expiration: expiration,
            collapseID: collapseID, payload: request.body, receivedAt: now, token: token, channelID: nil,
            connectionID: request.connectionID
        )
        // A token unknown here that the server registered (asked outside the lock: it may read a database).
        // Only the embedded sandbox sets the hook; a test sandbox pays nothing for it.
        let registered = knownTokens.withLock { $0 }.map { isKnown in state.withLock { $0.devices[token] == nil } && isKnown(token) } ?? false
        try state.withLock { state throws(APNSRejection) in
            if let bundleID, !state.bundles.contains(bundleID) { throw .badRequest(.topicDisallowed) }
            if registered, state.devices[token] == nil {
                state.devices[token] = DeviceRecord(bundleID: bundleID ?? defaultBundleID, status: .active)
            }
            // No hashing of the token when no device is registered (`--accept-any-token` runs).
            if !state.devices.isEmpty, let device = state.devices[token] {
                if let bundleID, device.bundleID != bundleID { throw .badRequest(.deviceTokenNotForTopic) }
                switch device.status {
                case .active: break
                case .unregistered(let date): throw APNSRejection(410, .unregistered, timestamp: date)
                case .expired(let date): throw APNSRejection(410, .expiredToken, timestamp: date)
                }
            } else if !acceptAnyToken {
                throw .badRequest(.badDeviceToken)
            }
            if let fault = state.drawFault() { throw fault }
            state.record(accepted)
        }
        notifyObservers(accepted)
        return success(idName: "apns-id", id: apnsID)
    }

    /// Whether a `widgets` push's body is what WidgetKit reloads on: a JSON object whose `aps`
    /// has `content-changed` set to `true` (the JSON literal; other keys may come beside it).
    ///
    /// Related Apple documentation: "Updating widgets with WidgetKit push notifications"
    /// (https://developer.apple.com/documentation/widgetkit/updating-widgets-with-widgetkit-push-notifications)
    /// asks for `content-changed: true` in `aps` but names no answer of APNs without it. The
    /// sandbox chooses `400 BadRequestPayload`, APNs's reason for a broadcast body it cannot use,
    /// so that a sender learns of it at once instead of from a widget that never reloads
    /// (`docs/sandbox.md`, "Rules and their answers"). Apple names no priority or expiration rule
    /// for `widgets` either: they are checked as for every type (1, 5 or 10; none is 10).
    static func widgetsPayloadIsValid(_ body: [UInt8]) -> Bool {
        guard let aps = (try? JSONValue(json: body))?.objectValue?["aps"]?.objectValue else { return false }
        return aps["content-changed"] == .bool(true)
    }

    /// `apns-expiration`: seconds since 1970, 0 for "once, no storage".
    ///
    /// Related APNs documentation (`docs/apns.md` §1.2): anything but a non-negative integer is
    /// `400 BadExpirationDate`.
    static func expiration(_ headers: RequestHeaders) throws(APNSRejection) -> Int? {
        guard let sent = headers["apns-expiration"] else { return nil }
        guard !sent.isEmpty, sent.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let value = Int(sent) else {
            throw .badRequest(.badExpirationDate)
        }
        return value
    }
}
