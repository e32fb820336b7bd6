import Foundation
import LivelineCrypto
import LivelinePush
import LivelinePushWire
import Synchronization
import Testing

/// The provider token follows Apple's refresh rules on an injected clock.
struct ProviderTokenSourceTests {
    final class TestClock: Sendable {
        let now = Mutex(Date(timeIntervalSince1970: 1_800_000_000))
        func advance(minutes: Double) { now.withLock { $0 = $0.addingTimeInterval(minutes * 60) } }
        var read: @Sendable () -> Date { { self.now.withLock { $0 } } }
    }

    static func source(_ clock: TestClock) throws -> ProviderTokenSource {
        ProviderTokenSource(
            credentials: APNSCredentials(keyID: "KEY1234567", teamID: "TEAM123456", key: try ES256PrivateKey.generate()), clock: clock.read)
    }

    @Test func theTokenIsReusedForFiftyMinutesThenRenewed() throws {
        let clock = TestClock()
        let source = try Self.source(clock)
        let first = try source.token()
        #expect(first.keyID == "KEY1234567" && first.teamID == "TEAM123456")
        #expect(first.issuedAt == 1_800_000_000)
        clock.advance(minutes: 49)
        #expect(try source.token() == first)
        clock.advance(minutes: 2)
        let second = try source.token()
        #expect(second != first)
        #expect(second.issuedAt == 1_800_000_000 + 51 * 60)
        #expect(second.verify(with: source.credentials.key.publicKey))
    }

    @Test func aRejectedTokenRotatesOnceForAllItsRequests() throws {
        let clock = TestClock()
        let source = try Self.source(clock)
        let first = try source.token()
        clock.advance(minutes: 1)
        let rotated = try source.rotate(after: first)
        #expect(rotated != first)
        // A second request refused with the same old token gets the new one, not a third.
        #expect(try source.rotate(after: first) == rotated)
        #expect(try source.token() == rotated)
    }
}
