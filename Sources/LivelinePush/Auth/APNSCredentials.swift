import Foundation
import LivelineCrypto
import LivelinePushWire

/// A token-based APNs credential: the `.p8` key with its key id, and the team id.
///
/// Related APNs documentation: "Establishing a token-based connection to APNs" (docs/apns.md §1.4).
/// Live Activity pushes need token auth; certificates are not supported for them.
public struct APNSCredentials: Sendable {
    public var keyID: String
    public var teamID: String
    public var key: ES256PrivateKey

    public init(keyID: String, teamID: String, key: ES256PrivateKey) {
        self.keyID = keyID
        self.teamID = teamID
        self.key = key
    }

    /// Loads the `.p8` at `keyFile`.
    public init(keyFile: URL, keyID: String, teamID: String) throws {
        self.init(keyID: keyID, teamID: teamID, key: try ES256PrivateKey(contentsOf: keyFile))
    }
}
