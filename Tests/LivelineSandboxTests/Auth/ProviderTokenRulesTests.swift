import Foundation
import LivelineCrypto
import LivelineHTTP2
import Testing
@testable import LivelineSandbox

/// The provider token rules, with the sandbox clock moved by hand.
@Suite struct ProviderTokenRulesTests {
    @Test func aTokenOlderThanAnHourIsExpired() async throws {
        let harness = try SandboxHarness()
        defer { harness.sandbox.stop() }
        let client = try harness.client()
        defer { client.close() }
        let jwt = try harness.jwt()
        #expect(try await harness.push(client, jwt: jwt).status == 200)
        harness.clock.advance(by: 3600)
        #expect(try await harness.push(client, jwt: jwt).status == 200, "exactly one hour is still fine")
        harness.clock.advance(by: 1)
        let expired = try await harness.push(client, jwt: jwt)
        #expect(expired.status == 403 && expired.reason == "ExpiredProviderToken")
        let fresh = try await harness.push(client, jwt: try harness.jwt())
        #expect(fresh.status == 200, "a new token after 60 minutes is a legal update")
    }

    @Test func switchingTokensTwiceWithin20MinutesIsTooManyUpdates() async throws {
        let harness = try SandboxHarness()
        defer { harness.sandbox.stop() }
        let client = try harness.client()
        defer { client.close() }
        let first = try harness.jwt()
        #expect(try await harness.push(client, jwt: first).status == 200)
        harness.clock.advance(by: 5 * 60)
        let second = try harness.jwt()
        let early = try await harness.push(client, jwt: second)
        #expect(early.status == 429 && early.reason == "TooManyProviderTokenUpdates")
        #expect(try await harness.push(client, jwt: first).status == 200, "the connection keeps its token")
        harness.clock.advance(by: 15 * 60)
        #expect(try await harness.push(client, jwt: second).status == 200, "20 minutes after the first token")
        harness.clock.advance(by: 60)
        let third = try harness.jwt()
        #expect(try await harness.push(client, jwt: third).reason == "TooManyProviderTokenUpdates")

        let other = try harness.client()
        defer { other.close() }
        #expect(try await harness.push(other, jwt: third).status == 200, "the rule is per connection")
    }

    @Test func aSecondKeyOnOneConnectionIsUnrelatedButWorksOnItsOwn() async throws {
        let harness = try SandboxHarness()
        defer { harness.sandbox.stop() }
        let key = try ES256PrivateKey.generate()
        harness.sandbox.addKey(key.publicKey, keyID: "LLKEY00002", teamID: harness.sandbox.teamID)
        let client = try harness.client()
        defer { client.close() }
        #expect(try await harness.push(client).status == 200)
        let otherKeyToken = try harness.jwt(key: key, keyID: "LLKEY00002")
        let unrelated = try await harness.push(client, jwt: otherKeyToken)
        #expect(unrelated.status == 403 && unrelated.reason == "UnrelatedKeyIdInToken")

        let fresh = try harness.client()
        defer { fresh.close() }
        #expect(try await harness.push(fresh, jwt: otherKeyToken).status == 200)
    }

    @Test func aTokenVerifiedOnAConnectionIsCheckedAgainWhenItsKeyChanges() async throws {
        let harness = try SandboxHarness()
        defer { harness.sandbox.stop() }
        let client = try harness.client()
        defer { client.close() }
        let jwt = try harness.jwt()
        #expect(try await harness.push(client, jwt: jwt).status == 200)
        #expect(try await harness.push(client, jwt: jwt).status == 200, "the same text again, from the connection's cache")
        // The key ID now names another key: the token the connection verified no longer verifies.
        harness.sandbox.addKey(try ES256PrivateKey.generate().publicKey, keyID: harness.sandbox.keyID, teamID: harness.sandbox.teamID)
        let replaced = try await harness.push(client, jwt: jwt)
        #expect(replaced.status == 403 && replaced.reason == "InvalidProviderToken")
    }

    @Test func unknownKeysBadSignaturesAndWrongTeamsAreInvalid() async throws {
        let harness = try SandboxHarness()
        defer { harness.sandbox.stop() }
        let client = try harness.client()
        defer { client.close() }
        let stranger = try ES256PrivateKey.generate()
        let unknownKid = try harness.jwt(keyID: "NOSUCHKEY1")
        let forged = try harness.jwt(key: stranger)
        let wrongTeam = try harness.jwt(teamID: "OTHERTEAM1")
        // Change a character in the middle of the signature (the last one may only hold padding bits).
        var characters = Array(try harness.jwt())
        let index = characters.count - 20
        characters[index] = characters[index] == "A" ? "B" : "A"
        let tampered = String(characters)
        let hs256 = "eyJhbGciOiJIUzI1NiIsImtpZCI6IkxMS0VZMDAwMDEifQ.eyJpc3MiOiJMTFRFQU0wMDAxIiwiaWF0IjoxNzY3MDAwMDAwfQ.c2lnbmF0dXJl"
        for (why, jwt) in [
            ("unknown kid", unknownKid), ("signed by another key", forged), ("iss of another team", wrongTeam), ("tampered signature", tampered),
            ("HS256", hs256),
        ] {
            let response = try await harness.push(client, jwt: jwt)
            #expect(response.status == 403 && response.reason == "InvalidProviderToken", "\(why)")
        }
        #expect(try await harness.push(client).status == 200, "failed tokens do not bind the connection")
    }

    @Test func aStringIatIsTolerated() async throws {
        let harness = try SandboxHarness()
        defer { harness.sandbox.stop() }
        let client = try harness.client()
        defer { client.close() }
        let header = Base64URL.encode(Array(#"{"alg":"ES256","kid":"LLKEY00001"}"#.utf8))
        let claims = Base64URL.encode(Array(#"{"iss":"LLTEAM0001","iat":"\#(Int(harness.clock.now.timeIntervalSince1970))"}"#.utf8))
        let signature = try harness.sandbox.signingKey.sign(Array((header + "." + claims).utf8))
        let jwt = header + "." + claims + "." + Base64URL.encode(signature)
        #expect(try await harness.push(client, jwt: jwt).status == 200)
    }

    @Test func theSandboxMintsTokensItAccepts() async throws {
        let harness = try SandboxHarness()
        defer { harness.sandbox.stop() }
        let client = try harness.client()
        defer { client.close() }
        #expect(try await harness.push(client, jwt: try harness.sandbox.providerToken()).status == 200)
        let parsed = try ProviderToken.parse(try harness.sandbox.providerToken())
        #expect(parsed.keyID == "LLKEY00001" && parsed.teamID == "LLTEAM0001" && parsed.issuedAt == Int(harness.clock.now.timeIntervalSince1970))
        #expect(FileManager.default.fileExists(atPath: harness.sandbox.keyFile.path))
        #expect(harness.sandbox.keyFile.lastPathComponent == "AuthKey_LLKEY00001.p8")
        let loaded = try ES256PrivateKey(contentsOf: harness.sandbox.keyFile)
        #expect(loaded.publicKey.pem == harness.sandbox.signingKey.publicKey.pem)
    }
}
