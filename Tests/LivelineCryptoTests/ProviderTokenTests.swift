import Foundation
import LivelineCrypto
import Testing

struct ProviderTokenTests {
    private let key: ES256PrivateKey

    init() throws {
        key = try ES256PrivateKey.generate()
    }

    /// A token with the given header and claims JSON text, signed by `signer` (default: `key`).
    private func token(header: String, claims: String, signer: ES256PrivateKey? = nil) throws -> String {
        let input = Base64URL.encode(Array(header.utf8)) + "." + Base64URL.encode(Array(claims.utf8))
        return input + "." + Base64URL.encode(try (signer ?? key).sign(Array(input.utf8)))
    }

    private func decodedJSON(_ part: Substring) throws -> [String: Any] {
        let bytes = try #require(Base64URL.decode(String(part)))
        return try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
    }

    @Test func signParseVerifyRoundTrip() throws {
        let signed = try ProviderToken.sign(keyID: "ABC123DEFG", teamID: "DEF123GHIJ", issuedAt: 1_700_000_000, key: key)
        #expect(signed.keyID == "ABC123DEFG")
        #expect(signed.teamID == "DEF123GHIJ")
        #expect(signed.issuedAt == 1_700_000_000)
        #expect(signed.verify(with: key.publicKey))

        let parts = signed.compact.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3)
        #expect(!signed.compact.contains("="))
        let header = try decodedJSON(parts[0])
        #expect(header.count == 2)
        #expect(header["alg"] as? String == "ES256")
        #expect(header["kid"] as? String == "ABC123DEFG")
        let claims = try decodedJSON(parts[1])
        #expect(claims.count == 2)
        #expect(claims["iss"] as? String == "DEF123GHIJ")
        #expect(claims["iat"] as? Int == 1_700_000_000)
        #expect(Base64URL.decode(String(parts[2]))?.count == 64)

        let parsed = try ProviderToken.parse(signed.compact)
        #expect(parsed == signed)
        #expect(parsed.verify(with: key.publicKey))
    }

    @Test func emptyIdentifiersAreRefusedWhenSigning() {
        #expect(throws: CryptoError.self) { try ProviderToken.sign(keyID: "", teamID: "TEAM", issuedAt: 1, key: key) }
        #expect(throws: CryptoError.self) { try ProviderToken.sign(keyID: "KEY", teamID: "", issuedAt: 1, key: key) }
    }

    @Test func iatSentAsStringOfDigitsParses() throws {
        let compact = try token(header: #"{"alg":"ES256","kid":"ABC123DEFG"}"#, claims: #"{"iss":"DEF123GHIJ","iat":"1700000000"}"#)
        let parsed = try ProviderToken.parse(compact)
        #expect(parsed.issuedAt == 1_700_000_000)
        #expect(parsed.verify(with: key.publicKey))
    }

    @Test func extraFieldsAndOtherLayoutsAreTolerated() throws {
        let compact = try token(
            header: #"{ "typ": "JWT", "kid": "ABC123DEFG", "alg": "ES256", "x5u": null }"#,
            claims: #"{"iat": 1700000000, "iss": "DEF123GHIJ", "exp": 1700003600, "aud": ["a", 1]}"#
        )
        let parsed = try ProviderToken.parse(compact)
        #expect(parsed.keyID == "ABC123DEFG")
        #expect(parsed.teamID == "DEF123GHIJ")
        #expect(parsed.issuedAt == 1_700_000_000)
        // The signature covers the parts as sent, not a re-encoding of the fields.
        #expect(parsed.verify(with: key.publicKey))
    }

    @Test(arguments: ["HS256", "RS256", "ES384", "none", "es256"])
    func otherAlgorithmsAreRejected(alg: String) throws {
        let compact = try token(header: #"{"alg":"\#(alg)","kid":"ABC123DEFG"}"#, claims: #"{"iss":"T","iat":1}"#)
        let error = #expect(throws: CryptoError.self) { try ProviderToken.parse(compact) }
        #expect(error?.code == .unsupportedAlgorithm)
        #expect(error?.message.contains(alg) == true)
    }

    @Test func missingOrNonStringAlgIsRejected() throws {
        for header in [#"{"kid":"K"}"#, #"{"alg":256,"kid":"K"}"#] {
            let compact = try token(header: header, claims: #"{"iss":"T","iat":1}"#)
            let error = #expect(throws: CryptoError.self) { try ProviderToken.parse(compact) }
            #expect(error?.code == .unsupportedAlgorithm)
        }
    }

    @Test func unsignedNoneTokenIsRejectedAsAlgorithm() throws {
        let compact = Base64URL.encode(Array(#"{"alg":"none"}"#.utf8)) + "." + Base64URL.encode(Array(#"{"iss":"T","iat":1}"#.utf8)) + "."
        let error = #expect(throws: CryptoError.self) { try ProviderToken.parse(compact) }
        #expect(error?.code == .unsupportedAlgorithm)
    }

    @Test func wrongNumberOfPartsIsMalformed() throws {
        let compact = try ProviderToken.sign(keyID: "K", teamID: "T", issuedAt: 1, key: key).compact
        let parts = compact.split(separator: ".")
        for text in ["", "abc", parts[0] + "." + parts[1], compact + "." + parts[2], compact + "."] {
            let error = #expect(throws: CryptoError.self) { try ProviderToken.parse(String(text)) }
            #expect(error?.code == .malformedToken)
            #expect(error?.message.contains(String(parts[1])) == false)
        }
        let twoParts = #expect(throws: CryptoError.self) { try ProviderToken.parse(parts[0] + "." + parts[1]) }
        #expect(twoParts?.message.contains("2") == true)
    }

    @Test func nonBase64OrNonJSONPartsAreMalformed() throws {
        let good = try ProviderToken.sign(keyID: "K", teamID: "T", issuedAt: 1, key: key).compact
        let parts = good.split(separator: ".").map(String.init)
        let notJSON = Base64URL.encode(Array("not json".utf8))
        let array = Base64URL.encode(Array("[1,2]".utf8))
        // A text JSONDecoder traps on (it ends right after its 513th `[`).
        let deep = Base64URL.encode(Array(String(repeating: "[", count: 513).utf8))
        let cases: [(String, String)] = [
            ("*bad*." + parts[1] + "." + parts[2], "header"),
            (parts[0] + ".*bad*." + parts[2], "claims"),
            (parts[0] + "." + parts[1] + ".*bad*", "signature"),
            (notJSON + "." + parts[1] + "." + parts[2], "header"),
            (parts[0] + "." + array + "." + parts[2], "claims"),
            (deep + "." + parts[1] + "." + parts[2], "header"),
            (parts[0] + "." + deep + "." + parts[2], "claims"),
            ("." + parts[1] + "." + parts[2], "header"),
            (parts[0] + "." + parts[1] + "." + Base64URL.encode([1, 2, 3]), "signature"),
        ]
        for (text, part) in cases {
            let error = #expect(throws: CryptoError.self) { try ProviderToken.parse(text) }
            #expect(error?.code == .malformedToken, "\(part)")
            #expect(error?.message.contains(part) == true, "\(String(describing: error)) should name the \(part)")
        }
    }

    @Test func missingKidIssOrIatIsAMissingClaim() throws {
        let cases: [(String, String, String)] = [
            (#"{"alg":"ES256"}"#, #"{"iss":"T","iat":1}"#, "kid"),
            (#"{"alg":"ES256","kid":"K"}"#, #"{"iat":1}"#, "iss"),
            (#"{"alg":"ES256","kid":"K"}"#, #"{"iss":"T"}"#, "iat"),
        ]
        for (header, claims, name) in cases {
            let error = #expect(throws: CryptoError.self) { try ProviderToken.parse(try token(header: header, claims: claims)) }
            #expect(error?.code == .missingClaim)
            #expect(error?.message.contains(name) == true)
        }
    }

    @Test(arguments: [#""12a""#, #""""#, #""-5""#, #"" 5""#, "-1", "1.5", "true", "null", "[1]", #""99999999999999999999999""#])
    func badIatIsAnInvalidClaim(iat: String) throws {
        let compact = try token(header: #"{"alg":"ES256","kid":"K"}"#, claims: #"{"iss":"T","iat":\#(iat)}"#)
        let error = #expect(throws: CryptoError.self) { try ProviderToken.parse(compact) }
        #expect(error?.code == .invalidClaim)
    }

    @Test func emptyOrNonStringKidAndIssAreInvalid() throws {
        for (header, claims) in [
            (#"{"alg":"ES256","kid":""}"#, #"{"iss":"T","iat":1}"#),
            (#"{"alg":"ES256","kid":7}"#, #"{"iss":"T","iat":1}"#),
            (#"{"alg":"ES256","kid":"K"}"#, #"{"iss":["T"],"iat":1}"#),
        ] {
            let error = #expect(throws: CryptoError.self) { try ProviderToken.parse(try token(header: header, claims: claims)) }
            #expect(error?.code == .invalidClaim)
        }
    }

    @Test func tamperedClaimsFailVerification() throws {
        let signed = try ProviderToken.sign(keyID: "ABC123DEFG", teamID: "DEF123GHIJ", issuedAt: 1_700_000_000, key: key)
        let parts = signed.compact.split(separator: ".").map(String.init)
        let forgedClaims = Base64URL.encode(Array(#"{"iat":1800000000,"iss":"DEF123GHIJ"}"#.utf8))
        let forged = try ProviderToken.parse(parts[0] + "." + forgedClaims + "." + parts[2])
        #expect(forged.issuedAt == 1_800_000_000)
        #expect(!forged.verify(with: key.publicKey))

        let otherTeam = Base64URL.encode(Array(#"{"iat":1700000000,"iss":"EVILTEAM00"}"#.utf8))
        #expect(try !ProviderToken.parse(parts[0] + "." + otherTeam + "." + parts[2]).verify(with: key.publicKey))
    }

    @Test func tamperedSignatureOrOtherKeyFailsVerification() throws {
        let signed = try ProviderToken.sign(keyID: "K", teamID: "T", issuedAt: 1, key: key)
        #expect(!signed.verify(with: try ES256PrivateKey.generate().publicKey))

        var signature = try #require(Base64URL.decode(String(signed.compact.split(separator: ".")[2])))
        signature[10] ^= 0x01
        let parts = signed.compact.split(separator: ".").map(String.init)
        let tampered = try ProviderToken.parse(parts[0] + "." + parts[1] + "." + Base64URL.encode(signature))
        #expect(!tampered.verify(with: key.publicKey))
    }

    @Test func errorsDoNotEchoTheToken() throws {
        let compact = try token(header: #"{"alg":"HS256","kid":"SECRETKID1"}"#, claims: #"{"iss":"SECRETTEAM","iat":1}"#)
        let error = #expect(throws: CryptoError.self) { try ProviderToken.parse(compact) }
        #expect(error?.message.contains("SECRET") == false)
        #expect(error?.message.contains(String(compact.prefix(20))) == false)
    }

    @Test func hostileAlgIsShortenedAndPrintable() throws {
        let compact = try token(
            header: #"{"alg":"x\nINJECTED LOG LINE \u0007 and a great deal more text","kid":"K"}"#, claims: #"{"iss":"T","iat":1}"#)
        let error = #expect(throws: CryptoError.self) { try ProviderToken.parse(compact) }
        #expect(error?.code == .unsupportedAlgorithm)
        #expect(error?.message.contains("\n") == false)
        #expect(error?.message.contains("great deal") == false)
    }
}
