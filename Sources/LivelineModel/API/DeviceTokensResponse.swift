import Foundation

/// Answer of `GET /api/apns/register`: the caller's own devices and their active tokens.
public struct DeviceTokensResponse: Codable, Sendable, Hashable {
    public struct Token: Codable, Sendable, Hashable {
        public var kind: PushTokenKind
        public var environment: PushEnvironment
        /// Where ``environment`` came from: `app` (the registration said it), `default` (it did
        /// not: the server's default, tried once in the other environment on `BadDeviceToken`),
        /// `learned` (the other environment took it).
        public var environmentSource: String?
        /// The first characters of the token followed by `…`; the whole token is never shown.
        public var tokenPrefix: String
        public var attributesType: String?
        public var contextKey: String?
        public var frequentPushesEnabled: Bool
        /// When the app last registered this token.
        public var registeredAt: Date

        public init(
            kind: PushTokenKind, environment: PushEnvironment, tokenPrefix: String, attributesType: String?,
            contextKey: String?, frequentPushesEnabled: Bool, registeredAt: Date, environmentSource: String? = nil
        ) {
            self.kind = kind
            self.environment = environment
            self.environmentSource = environmentSource
            self.tokenPrefix = tokenPrefix
            self.attributesType = attributesType
            self.contextKey = contextKey
            self.frequentPushesEnabled = frequentPushesEnabled
            self.registeredAt = registeredAt
        }
    }

    public struct Device: Codable, Sendable, Hashable {
        public var deviceID: String
        public var tokens: [Token]

        public init(deviceID: String, tokens: [Token]) {
            self.deviceID = deviceID
            self.tokens = tokens
        }

        enum CodingKeys: String, CodingKey {
            case deviceID = "deviceId", tokens
        }
    }

    public var devices: [Device]

    public init(devices: [Device]) { self.devices = devices }
}
