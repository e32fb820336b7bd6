import Foundation

/// The compact serialization (RFC 7515 §7.1) of ES256-signed JWTs (RFC 7519), shared by
/// `ProviderToken` (APNs) and `VAPID` (Web Push): `base64url(header).base64url(claims).base64url(r‖s)`.
enum JWS {
    /// Signs `header` and `claims` (JSON bytes) with `key` over `base64url(header).base64url(claims)`
    /// and returns the compact token.
    static func sign(header: [UInt8], claims: [UInt8], key: ES256PrivateKey) throws(CryptoError) -> String {
        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(claims)
        return signingInput + "." + Base64URL.encode(try key.signature(of: Array(signingInput.utf8)))
    }

    /// `value` as compact JSON with sorted keys and unescaped slashes (`"aud":"https://…"`).
    static func json(_ value: some Encodable) throws(CryptoError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return Array(try encoder.encode(value))
        } catch {
            throw CryptoError(.invalidArgument, "the JWT fields cannot be encoded as JSON")
        }
    }

    /// One JSON value of a header or claims object, as far as this module cares.
    enum Field: Decodable {
        case integer(Int)
        case string(String)
        case other

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let value = try? container.decode(Int.self) {
                self = .integer(value)
            } else if let value = try? container.decode(String.self) {
                self = .string(value)
            } else {
                self = .other
            }
        }
    }

    /// Decodes one base64url part (`name`: "header" or "claims") as a JSON object.
    static func object(_ part: String, _ name: String) throws(CryptoError) -> [String: Field] {
        guard !part.isEmpty, let bytes = Base64URL.decode(part) else {
            throw CryptoError(.malformedToken, "the token \(name) is empty or not base64url")
        }
        // A header or claims object is flat: more than a few hundred brackets is no token, and
        // `JSONDecoder` traps on some texts nested deeper than 512 (`JSONDecoder.decode(_:fromUntrusted:)`
        // in LivelineModel, which this module does not import, says which).
        guard bytes.lazy.filter({ $0 == UInt8(ascii: "[") || $0 == UInt8(ascii: "{") }).count <= 512 else {
            throw CryptoError(.malformedToken, "the token \(name) is not a JSON object")
        }
        do {
            return try JSONDecoder().decode([String: Field].self, from: Data(bytes))
        } catch {
            throw CryptoError(.malformedToken, "the token \(name) is not a JSON object")
        }
    }

    /// A client-supplied value for a message: at most 16 characters, anything but printable ASCII
    /// shown as `?`, so a hostile token cannot forge log lines.
    static func printable(_ value: String) -> String {
        let shown = value.unicodeScalars.prefix(16).map { (0x20...0x7e).contains($0.value) ? Character($0) : "?" }
        return "\"" + String(shown) + "\"" + (value.unicodeScalars.count > 16 ? "…" : "")
    }
}
