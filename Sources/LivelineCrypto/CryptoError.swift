/// A cryptography failure: a machine `code` to branch on and a message for a person.
///
/// Messages say what was wrong and where (a file path, which part of a token), and may carry
/// OpenSSL's reason string, but never key material, PEM text or token contents: a `.p8` key must
/// not end up in a log because it failed to parse (guide README, habit 5).
public struct CryptoError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What kind of failure this is.
    public struct Code: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The PEM text is not a key of the expected kind (not PEM, not EC, not P-256, encrypted).
        public static let invalidKey = Code(rawValue: "invalidKey")
        /// A key or certificate file could not be read.
        public static let unreadableFile = Code(rawValue: "unreadableFile")
        /// A key or certificate file could not be written.
        public static let unwritableFile = Code(rawValue: "unwritableFile")
        /// A token is not three base64url parts with JSON header and claims and a 64-byte signature
        /// (or a VAPID `Authorization` value is not `vapid t=…, k=…`).
        public static let malformedToken = Code(rawValue: "malformedToken")
        /// The token's header names another algorithm than ES256, the only one APNs and VAPID use.
        public static let unsupportedAlgorithm = Code(rawValue: "unsupportedAlgorithm")
        /// The token lacks a required header field (`kid`) or claim (`iss`, `iat`; VAPID's `aud`,
        /// `exp`, `sub`).
        public static let missingClaim = Code(rawValue: "missingClaim")
        /// A header field or claim is present but has the wrong type or value.
        public static let invalidClaim = Code(rawValue: "invalidClaim")
        /// An argument cannot be used as given (e.g. an empty key ID).
        public static let invalidArgument = Code(rawValue: "invalidArgument")
        /// Authenticated decryption failed: the AES-GCM tag does not match (another key, nonce or
        /// auth secret, or altered bytes).
        public static let authenticationFailed = Code(rawValue: "authenticationFailed")
        /// An encrypted message is not in the expected format (e.g. a Web Push body whose
        /// `aes128gcm` header is short or whose padding delimiter is missing).
        public static let malformedMessage = Code(rawValue: "malformedMessage")
        /// A signature does not verify with the key that should have made it.
        public static let invalidSignature = Code(rawValue: "invalidSignature")
        /// An OpenSSL call failed (key generation, signing, building a certificate).
        public static let openSSL = Code(rawValue: "openSSL")
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
