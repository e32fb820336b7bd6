import Foundation
import LivelineCrypto
import LivelinePushWire
import LivelineWebPush
import Testing

/// This server's VAPID key and headers (docs/operations.md, "Web Push").
@Suite struct VAPIDIdentityTests {
    static func folder() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("liveline-vapid-\(UUID().uuidString)")
    }

    @Test func aKeyIsMadeOnceKeptOwnerOnlyAndReadAgain() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let made = try VAPIDIdentity.loadOrCreateKey(configured: nil, dataDirectory: folder)
        #expect(made.generated)
        let file = folder.appendingPathComponent("webpush-vapid-key.pem")
        let mode = try #require(try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int)
        #expect(mode & 0o777 == 0o600, "mode \(String(mode, radix: 8))")
        let again = try VAPIDIdentity.loadOrCreateKey(configured: nil, dataDirectory: folder)
        #expect(!again.generated && again.key.publicKey.uncompressed == made.key.publicKey.uncompressed, "the same key after a restart")
        // Given as a file, that one is used.
        let other = try ES256PrivateKey.generate()
        let path = folder.appendingPathComponent("given.pem")
        try Data(other.pkcs8PEM.utf8).write(to: path)
        let given = try VAPIDIdentity.loadOrCreateKey(configured: path.path, dataDirectory: folder)
        #expect(!given.generated && given.key.publicKey.uncompressed == other.publicKey.uncompressed)
    }

    @Test func aValueThatIsNotAKeyFileIsRefusedWithoutShowingIt() throws {
        let folder = Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        // A private key pasted where a path belongs.
        let pasted = "MHcCAQEEIIsecretsecretsecretsecretsecretsecretsecretoAoGCCqGSM49"
        do {
            _ = try VAPIDIdentity.loadOrCreateKey(configured: pasted, dataDirectory: folder)
            Issue.record("accepted")
        } catch {
            #expect("\(error)".contains("LIVELINE_WEBPUSH_VAPID_KEY") && !"\(error)".contains("secret"), "\(error)")
        }
    }

    @Test func headersAreMadeOncePerOriginAndAnewWhenForgotten() throws {
        let identity = VAPIDIdentity(key: try ES256PrivateKey.generate(), subject: "mailto:ops@liveline.test")
        let now = Date()
        let first = try identity.authorization(for: "https://push.example/a", now: now)
        #expect(try identity.authorization(for: "https://push.example/b", now: now.addingTimeInterval(60)) == first, "one origin, one header")
        #expect(try identity.authorization(for: "https://other.example/a", now: now) != first)
        let claims = try VAPID.verify(authorization: first, audience: "https://push.example", now: now)
        #expect(claims.subject == "mailto:ops@liveline.test" && abs(claims.expiresAt.timeIntervalSince(now) - VAPIDIdentity.lifetime) < 2)
        // Renewed once less than an hour is left, and after the push service refused it.
        #expect(try identity.authorization(for: "https://push.example/a", now: now.addingTimeInterval(VAPIDIdentity.lifetime - 1800)) != first)
        let current = try identity.authorization(for: "https://push.example/a", now: now)
        #expect(try identity.authorization(for: "https://push.example/a", now: now.addingTimeInterval(2)) == current, "still cached")
        identity.forgetAuthorization(for: "https://push.example/zzz")
        // Made anew: its exp (whole seconds) is two seconds later.
        #expect(try identity.authorization(for: "https://push.example/a", now: now.addingTimeInterval(2)) != current)
        let unset = VAPIDIdentity(key: try ES256PrivateKey.generate(), subject: nil)
        #expect(throws: WebPushError.self) { try unset.authorization(for: "https://push.example/a", now: now) }
    }
}
