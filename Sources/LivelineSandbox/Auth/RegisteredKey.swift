import LivelineCrypto

/// A provider key the sandbox trusts: its public half and the team it belongs to.
struct RegisteredKey: Sendable {
    var publicKey: ES256PublicKey
    var teamID: String
}
