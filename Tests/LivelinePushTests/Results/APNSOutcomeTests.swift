import Foundation
import LivelinePush
import LivelinePushWire
import Testing

/// Every status and reason of docs/apns.md §1.6 and §1.8 has its one classification.
struct APNSOutcomeTests {
    static let permanent400: [APNSReason] = [
        .badCollapseID, .badExpirationDate, .badMessageID, .badPriority, .badTopic, .duplicateHeaders, .invalidPushType,
        .missingDeviceToken, .missingTopic, .payloadEmpty, .topicDisallowed, .featureNotEnabled, .missingChannelID,
        .badChannelID, .channelNotRegistered, .badRequestParams, .badRequestPayload, .missingPushType, .cannotCreateChannelConfig,
    ]

    @Test func successIsDelivered() {
        #expect(APNSOutcome.classify(status: 200, reason: nil) == .delivered)
        #expect(APNSOutcome.classify(status: 201, reason: nil) == .delivered)
        #expect(APNSOutcome.classify(status: 204, reason: nil) == .delivered)
    }

    @Test func requestErrorsAreNeverRetried() {
        for reason in Self.permanent400 {
            #expect(APNSOutcome.classify(status: 400, reason: reason) == .permanent, "\(reason)")
        }
        for reason: APNSReason in [
            .badCertificate, .badCertificateEnvironment, .forbidden, .invalidProviderToken, .missingProviderToken, .badEnvironmentKeyIDInToken,
            .topicMismatch,
        ] {
            #expect(APNSOutcome.classify(status: 403, reason: reason) == .permanent, "\(reason)")
        }
        #expect(APNSOutcome.classify(status: 404, reason: .badPath) == .permanent)
        #expect(APNSOutcome.classify(status: 405, reason: .methodNotAllowed) == .permanent)
        #expect(APNSOutcome.classify(status: 413, reason: .payloadTooLarge) == .permanent)
    }

    @Test func deadTokensCarryTheirTimestampWhenThereIsOne() {
        let when = Date(timeIntervalSince1970: 1_767_574_000)
        #expect(APNSOutcome.classify(status: 410, reason: .unregistered, timestamp: when) == .tokenDead(since: when))
        #expect(APNSOutcome.classify(status: 410, reason: .expiredToken, timestamp: when) == .tokenDead(since: when))
        #expect(APNSOutcome.classify(status: 400, reason: .badDeviceToken) == .tokenDead(since: nil))
        #expect(APNSOutcome.classify(status: 400, reason: .deviceTokenNotForTopic) == .tokenDead(since: nil))
    }

    @Test func throttlingAndServerErrorsAreRetried() {
        #expect(APNSOutcome.classify(status: 429, reason: .tooManyRequests) == .retry(newConnection: false))
        #expect(APNSOutcome.classify(status: 429, reason: .tooManyProviderTokenUpdates) == .retry(newConnection: false))
        #expect(APNSOutcome.classify(status: 500, reason: .internalServerError) == .retry(newConnection: false))
        #expect(APNSOutcome.classify(status: 503, reason: .serviceUnavailable) == .retry(newConnection: false))
        #expect(APNSOutcome.classify(status: 503, reason: .shutdown) == .retry(newConnection: true))
        #expect(APNSOutcome.classify(status: 403, reason: .unrelatedKeyIDInToken) == .retry(newConnection: true))
    }

    @Test func anExpiredProviderTokenRotates() {
        #expect(APNSOutcome.classify(status: 403, reason: .expiredProviderToken) == .rotateToken)
    }

    @Test func unknownReasonsAreKeptAndFallBackOnTheirStatus() {
        let novel = APNSReason(rawValue: "SomethingApple2027Added")
        #expect(novel.rawValue == "SomethingApple2027Added")
        #expect(APNSOutcome.classify(status: 400, reason: novel) == .permanent)
        #expect(APNSOutcome.classify(status: 502, reason: novel) == .retry(newConnection: false))
        #expect(APNSOutcome.classify(status: 410, reason: novel) == .tokenDead(since: nil))
        #expect(APNSOutcome.classify(status: 429, reason: nil) == .retry(newConnection: false))
    }
}
