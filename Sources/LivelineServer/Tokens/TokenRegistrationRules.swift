import Foundation
import LivelineAPI
import LivelineCrypto
import LivelineHTTP
import LivelineModel
import LivelineStore

/// Validates a `POST /api/apns/register` body and turns it into a registration (`docs/engine.md`,
/// "Push tokens"). Every failure is a 400 naming the field and what was expected; nothing is
/// stored then. A missing or null token is such a failure: it never deletes anything.
struct TokenRegistrationRules: Sendable {
    /// Environment of a token registered without one.
    let defaultEnvironment: PushEnvironment
    /// Attributes types a push-to-start token may be registered for; nil accepts any Swift type name.
    let knownAttributesTypes: Set<String>?
    /// `LIVELINE_WEBPUSH_ALLOW_INSECURE`: `http://` web push endpoints on this machine are accepted.
    var allowInsecureWebPush = false

    func registration(_ body: RegisterTokenRequest, caller: Caller) throws -> TokenRegistration {
        guard let kind = body.kind else {
            throw HTTPError.badRequest("kind is required: \(PushTokenKind.expectation)", field: "kind")
        }
        guard let raw = body.token, !raw.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw HTTPError.badRequest(
                "token is required, not null or empty: \(TokenFields.tokenExpectation) (a missing token never deletes one; use DELETE)",
                field: "token")
        }
        // The store keys a web-push subscription by its endpoint; the device stays the caller's.
        let deviceID = try Self.deviceID(body.deviceID) ?? "session-\(caller.sessionID)"
        let token: String
        var attributesType: String?
        var contextKey: String?
        switch kind {
        case .alert, .pushToStart, .update:
            token = try Self.apnsToken(raw)
        case .webPush:
            let subscription = try Self.webPushSubscription(raw, allowInsecure: allowInsecureWebPush)
            token = subscription.canonicalJSON
        }
        switch kind {
        case .pushToStart:
            attributesType = try attributes(body.attributesType)
        case .update:
            contextKey = try Self.contextKey(body.contextKey)
        case .alert, .webPush:
            break
        }
        return TokenRegistration(
            householdID: caller.householdID, userID: caller.userID, deviceID: deviceID, kind: kind,
            environment: body.environment ?? defaultEnvironment, token: token,
            attributesType: attributesType, contextKey: contextKey,
            frequentPushesEnabled: body.frequentPushesEnabled ?? false, environmentSource: body.environment == nil ? .default : .app
        )
    }

    /// An APNs device token: hex digits, an even count. Apple says to assume no length, so any
    /// length from 8 to 1024 bytes is accepted. Stored lower-cased.
    static func apnsToken(_ raw: String) throws -> String {
        try TokenFields.apnsToken.text(raw).lowercased()
    }

    /// A web-push token: the subscription JSON `{endpoint, keys: {p256dh, auth}}` (RFC 8291): an
    /// `https` endpoint (or `http` to this machine with `allowInsecure`), a P-256 public key and a
    /// 16-byte secret.
    static func webPushSubscription(_ raw: String, allowInsecure: Bool) throws -> WebPushSubscription {
        let subscription: WebPushSubscription
        do {
            subscription = try JSONDecoder().decode(WebPushSubscription.self, from: Data(raw.utf8))
        } catch let error as DecodingError {
            // Told as the same subscription sent as an object is (`token.keys.auth is required: …`).
            var problem = DecodingProblem(error, in: try? JSONValue(json: Data(raw.utf8)))
            if problem.kind == .notJSON { problem = DecodingProblem(path: [], kind: .invalid, found: DecodingProblem.words(for: .string(raw))) }
            let expected = RequestSchema(root: TokenFields.subscription).expectation(at: problem.path)
            problem.path.insert(.key("token"), at: 0)
            throw HTTPError.badRequest(problem.message(expecting: expected), field: problem.keyPath)
        } catch {
            throw HTTPError.badRequest("a web-push token is the subscription JSON {endpoint, keys: {p256dh, auth}}", field: "token")
        }
        guard let url = URLComponents(string: subscription.endpoint), let scheme = url.scheme?.lowercased(), let host = url.host, !host.isEmpty
        else {
            throw HTTPError.badRequest("token.endpoint must be an https URL", field: "token.endpoint")
        }
        let loopback = ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host.lowercased())
        guard scheme == "https" || (scheme == "http" && loopback && allowInsecure) else {
            let why =
                scheme == "http" && loopback
                ? "token.endpoint must be an https URL (http:// to this machine only with LIVELINE_WEBPUSH_ALLOW_INSECURE=1)"
                : "token.endpoint must be an https URL"
            throw HTTPError.badRequest(why, field: "token.endpoint")
        }
        // Push services are on the internet: an address of this machine or a private network
        // would let a subscription make the server post to it (only with the setting, loopback).
        if Self.isPrivateAddress(host), !(loopback && allowInsecure) {
            throw HTTPError.badRequest(
                "token.endpoint must be a push service on the internet, not a private or local address", field: "token.endpoint")
        }
        guard let key = Base64URL.decode(subscription.keys.p256dh), key.count == 65, key.first == 0x04 else {
            throw HTTPError.badRequest("token.keys.p256dh must be an uncompressed P-256 public key (65 bytes, base64url)", field: "token.keys.p256dh")
        }
        do {
            _ = try ES256PublicKey(uncompressed: key)
        } catch {
            throw HTTPError.badRequest("token.keys.p256dh is not a point on the P-256 curve", field: "token.keys.p256dh")
        }
        guard let secret = Base64URL.decode(subscription.keys.auth), secret.count == 16 else {
            throw HTTPError.badRequest("token.keys.auth must be a 16-byte secret, base64url", field: "token.keys.auth")
        }
        return subscription
    }

    /// An IP literal of this machine, a private network or link-local use (RFC 1918, RFC 4193,
    /// RFC 3927, RFC 4291), or `localhost`. Host names are not resolved here: the Web Push client
    /// checks the address it connects to (`PushServiceAddress`).
    static func isPrivateAddress(_ host: String) -> Bool {
        let name = host.lowercased().trimmingCharacters(in: CharacterSet(charactersIn: "[]"))
        if name == "localhost" || name.hasSuffix(".localhost") { return true }
        let parts = name.split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
        if parts.count == 4, parts.allSatisfy({ $0 != nil && (0...255).contains($0!) }) {
            let (a, b) = (parts[0]!, parts[1]!)
            return a == 0 || a == 10 || a == 127 || (a == 169 && b == 254) || (a == 172 && (16...31).contains(b)) || (a == 192 && b == 168)
                || (a == 100 && (64...127).contains(b))
        }
        guard name.contains(":") else { return false }
        return name == "::1" || name == "::" || name.hasPrefix("fc") || name.hasPrefix("fd") || name.hasPrefix("fe8")
            || name.hasPrefix("fe9") || name.hasPrefix("fea") || name.hasPrefix("feb") || name.hasPrefix("::ffff:")
    }

    func attributes(_ value: String?) throws -> String {
        guard let value, !value.isEmpty else {
            throw HTTPError.badRequest("attributes_type is required for la-pushToStart (the ActivityAttributes type name)", field: "attributes_type")
        }
        if let knownAttributesTypes, !knownAttributesTypes.contains(value) {
            throw HTTPError.badRequest(
                "attributes_type '\(value)' is not a known contract; known: \(knownAttributesTypes.sorted().joined(separator: ", "))",
                field: "attributes_type"
            )
        }
        guard Self.isSwiftTypeName(value) else {
            throw HTTPError.badRequest("attributes_type must be a Swift type name such as ShoppingActivityAttributes", field: "attributes_type")
        }
        return value
    }

    static func contextKey(_ value: String?) throws -> String {
        guard let value, !value.isEmpty else {
            throw HTTPError.badRequest("context_key is required for la-update (the context the activity shows)", field: "context_key")
        }
        return try TokenFields.contextKey.text(value)
    }

    static func deviceID(_ value: String?) throws -> String? {
        guard let value else { return nil }
        return try TokenFields.deviceID.text(value)
    }

    static func isSwiftTypeName(_ value: String) -> Bool {
        guard let first = value.unicodeScalars.first, first.properties.isAlphabetic || first == "_" else { return false }
        return value.count <= 128 && value.unicodeScalars.allSatisfy { $0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" }
    }
}
