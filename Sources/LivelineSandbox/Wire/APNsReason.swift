/// A reason string of an APNs error response, `{"reason": "…"}`.
///
/// Related APNs documentation: "Handling notification responses from APNs" and "Handling error
/// responses from APNs" (broadcast and channel management), `spec/apns.md` §1.6 and §1.8. Apple adds
/// reasons now and then, so this is a struct with static members and keeps any string.
public struct APNsReason: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(_ rawValue: String) { self.rawValue = rawValue }
    public var description: String { rawValue }

    // 400
    public static let badCollapseId = APNsReason("BadCollapseId")
    public static let badDeviceToken = APNsReason("BadDeviceToken")
    public static let badExpirationDate = APNsReason("BadExpirationDate")
    public static let badMessageId = APNsReason("BadMessageId")
    public static let badPriority = APNsReason("BadPriority")
    public static let badTopic = APNsReason("BadTopic")
    public static let deviceTokenNotForTopic = APNsReason("DeviceTokenNotForTopic")
    public static let duplicateHeaders = APNsReason("DuplicateHeaders")
    public static let idleTimeout = APNsReason("IdleTimeout")
    public static let invalidPushType = APNsReason("InvalidPushType")
    public static let missingDeviceToken = APNsReason("MissingDeviceToken")
    public static let missingTopic = APNsReason("MissingTopic")
    public static let payloadEmpty = APNsReason("PayloadEmpty")
    public static let topicDisallowed = APNsReason("TopicDisallowed")
    // 400, broadcast and channel management
    public static let featureNotEnabled = APNsReason("FeatureNotEnabled")
    public static let missingChannelId = APNsReason("MissingChannelId")
    public static let badChannelId = APNsReason("BadChannelId")
    public static let channelNotRegistered = APNsReason("ChannelNotRegistered")
    public static let badRequestParams = APNsReason("BadRequestParams")
    public static let badRequestPayload = APNsReason("BadRequestPayload")
    public static let missingPushType = APNsReason("MissingPushType")
    public static let cannotCreateChannelConfig = APNsReason("CannotCreateChannelConfig")
    // 403
    public static let badCertificate = APNsReason("BadCertificate")
    public static let badCertificateEnvironment = APNsReason("BadCertificateEnvironment")
    public static let expiredProviderToken = APNsReason("ExpiredProviderToken")
    public static let forbidden = APNsReason("Forbidden")
    public static let invalidProviderToken = APNsReason("InvalidProviderToken")
    public static let missingProviderToken = APNsReason("MissingProviderToken")
    public static let unrelatedKeyIdInToken = APNsReason("UnrelatedKeyIdInToken")
    public static let badEnvironmentKeyIdInToken = APNsReason("BadEnvironmentKeyIdInToken")
    public static let topicMismatch = APNsReason("TopicMismatch")
    // 404, 405
    public static let badPath = APNsReason("BadPath")
    public static let methodNotAllowed = APNsReason("MethodNotAllowed")
    // 410
    public static let expiredToken = APNsReason("ExpiredToken")
    public static let unregistered = APNsReason("Unregistered")
    // 413
    public static let payloadTooLarge = APNsReason("PayloadTooLarge")
    // 429
    public static let tooManyProviderTokenUpdates = APNsReason("TooManyProviderTokenUpdates")
    public static let tooManyRequests = APNsReason("TooManyRequests")
    // 500, 503
    public static let internalServerError = APNsReason("InternalServerError")
    public static let serviceUnavailable = APNsReason("ServiceUnavailable")
    public static let shutdown = APNsReason("Shutdown")
}
