import Foundation
import LivelineCrypto
import LivelineHTTP2
import LivelineModel

extension SandboxCore {
    /// `POST /1/apps/<bundleID>/channels` with `{"message-storage-policy": 0|1, "push-type": "LiveActivity"}`.
    ///
    /// Related APNs documentation: "Sending channel management requests to APNs" (`docs/apns.md`
    /// §1.8): `201` with the new ID in `apns-channel-id` and no body. An empty body is
    /// `400 PayloadEmpty`, one that is not a JSON object `400 BadRequestPayload`; no `push-type` is
    /// `400 MissingPushType`, another than `LiveActivity` (any case) `400 InvalidPushType`; a storage
    /// policy other than 0 or 1 is `400 BadRequestParams`; the app's 10,000th-and-first channel
    /// (the quota is configurable) is `400 CannotCreateChannelConfig`. IDs are 16 random bytes in
    /// base64, never issued twice.
    func createChannel(_ request: HTTP2Request, bundleID: String, requestID: String, now: Date) throws(APNSRejection) -> HTTP2Response {
        try checkBroadcastApp(bundleID)
        guard !request.body.isEmpty else { throw .badRequest(.payloadEmpty) }
        guard let body = try? JSONDecoder().decode(ChannelCreationBody.self, fromUntrusted: Data(request.body)) else {
            throw .badRequest(.badRequestPayload)
        }
        guard case .string(let pushType)? = body.pushType, !pushType.isEmpty else { throw .badRequest(.missingPushType) }
        guard pushType.lowercased() == "liveactivity" else { throw .badRequest(.invalidPushType) }
        guard case .integer(let policy)? = body.storagePolicy, policy == 0 || policy == 1 else {
            throw .badRequest(.badRequestParams)
        }
        let channelID = try state.withLock { state throws(APNSRejection) -> String in
            guard state.channelOrder[bundleID, default: []].count < channelQuota else {
                throw .badRequest(.cannotCreateChannelConfig)
            }
            var id: String
            repeat {
                id = Data(SecureRandom.bytes(16)).base64EncodedString()
            } while state.issuedChannelIDs.contains(id)
            state.issuedChannelIDs.insert(id)
            state.channels[id] = ChannelRecord(id: id, bundleID: bundleID, storagePolicy: policy, createdAt: now)
            state.channelOrder[bundleID, default: []].append(id)
            return id
        }
        return HTTP2Response(status: 201, headers: [("apns-request-id", requestID), ("apns-channel-id", channelID)])
    }

    /// `GET /1/apps/<bundleID>/channels` with `apns-channel-id`: `200 {"message-storage-policy": n, "push-type": "LiveActivity"}`.
    ///
    /// Related APNs documentation (`docs/apns.md` §1.8): a channel this app does not have is
    /// `400 ChannelNotRegistered`.
    func readChannel(bundleID: String, headers: RequestHeaders, requestID: String) throws(APNSRejection) -> HTTP2Response {
        try checkBroadcastApp(bundleID)
        let channelID = try Self.channelID(headers)
        let channel = try state.withLock { state throws(APNSRejection) -> ChannelRecord in
            guard let channel = state.channels[channelID], channel.bundleID == bundleID else { throw .badRequest(.channelNotRegistered) }
            return channel
        }
        let body = #"{"message-storage-policy":\#(channel.storagePolicy),"push-type":"LiveActivity"}"#
        return HTTP2Response(status: 200, headers: [("apns-request-id", requestID), ("content-type", "application/json")], body: Array(body.utf8))
    }

    /// `DELETE /1/apps/<bundleID>/channels` with `apns-channel-id`: `204`.
    ///
    /// Related APNs documentation (`docs/apns.md` §1.8): the ID is never issued again.
    func deleteChannel(bundleID: String, headers: RequestHeaders, requestID: String) throws(APNSRejection) -> HTTP2Response {
        try checkBroadcastApp(bundleID)
        let channelID = try Self.channelID(headers)
        try state.withLock { state throws(APNSRejection) in
            guard let channel = state.channels[channelID], channel.bundleID == bundleID else { throw .badRequest(.channelNotRegistered) }
            state.channels[channelID] = nil
            state.channelOrder[bundleID]?.removeAll { $0 == channelID }
        }
        return HTTP2Response(status: 204, headers: [("apns-request-id", requestID)])
    }

    /// `GET /1/apps/<bundleID>/all-channels`: `200 {"channels": [...]}`, oldest first.
    func listChannels(bundleID: String, requestID: String) throws(APNSRejection) -> HTTP2Response {
        try checkBroadcastApp(bundleID)
        let ids = state.withLock { $0.channelOrder[bundleID] ?? [] }
        let data = (try? JSONSerialization.data(withJSONObject: ["channels": ids], options: [.withoutEscapingSlashes])) ?? Data()
        return HTTP2Response(status: 200, headers: [("apns-request-id", requestID), ("content-type", "application/json")], body: Array(data))
    }
}
