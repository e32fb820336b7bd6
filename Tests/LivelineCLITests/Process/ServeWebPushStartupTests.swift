import Foundation
import LivelineCrypto
import LivelineModel
import LivelineStore
import LivelineTestSupport
import Testing

/// What `liveline serve` says at startup about Web Push (docs/operations.md, "Web Push"): the VAPID key made
/// on the first start, and subscriptions that cannot be sent to without a subject.
@Suite struct ServeWebPushStartupTests {
    static let keyLine = "a new VAPID key for web pushes was made and kept in"
    static let subjectLine = "browser subscriptions are registered, but LIVELINE_WEBPUSH_SUBJECT is not set"

    @Test func theFirstStartSaysItMadeAKeyAndALaterOneThatSubscriptionsNeedASubject() throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-webpush-start-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: data) }

        let first = try ServeProcess(data: data)
        #expect(first.startText.contains(Self.keyLine), "\(first.startText)")
        #expect(!first.startText.contains(Self.subjectLine), "no subscription yet")
        first.kill(SIGTERM)
        let keyFile = data.appendingPathComponent("webpush-vapid-key.pem")
        let mode = try FileManager.default.attributesOfItem(atPath: keyFile.path)[.posixPermissions] as? Int
        #expect(mode == 0o600, "the key file is the owner's only")

        // A browser subscribes (written to the store while no server runs).
        let store = try Store.openSQLite(folder: data)
        let user = try store.accounts.createUser(
            household: "Fisch", name: "Dennis", avatarTint: "azure", emoji: "🐟", locale: "de", tokenHash: SHA256.hex(UUID().uuidString),
            now: Date())
        let browser = try ES256PrivateKey.generate()
        let subscription = WebPushSubscription(
            endpoint: "https://push.example.com/send/abc",
            keys: .init(p256dh: Base64URL.encode(browser.publicKey.uncompressed), auth: Base64URL.encode(SecureRandom.bytes(16))))
        _ = try store.tokens.register(
            TokenRegistration(
                householdID: user.householdID, userID: user.id, deviceID: "laptop", kind: .webPush, environment: .production,
                token: subscription.canonicalJSON), now: Date())

        let second = try ServeProcess(data: data)
        #expect(!second.startText.contains(Self.keyLine), "the key is kept, not made again: \(second.startText)")
        #expect(second.startText.contains(Self.subjectLine), "\(second.startText)")
        second.kill(SIGTERM)

        let third = try ServeProcess(data: data, environment: ["LIVELINE_WEBPUSH_SUBJECT": "mailto:ops@liveline.test"])
        #expect(!third.startText.contains(Self.keyLine) && !third.startText.contains(Self.subjectLine), "\(third.startText)")
        third.kill(SIGTERM)
    }
}
