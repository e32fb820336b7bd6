import Foundation
import LivelineCrypto

/// The admin key of the `/v1` API: from configuration, or generated once and kept in
/// `<data>/admin-key` (mode 0600) so it survives restarts.
enum AdminKey {
    /// The key and whether it was generated just now (then the caller prints it once).
    static func loadOrCreate(configured: String?, dataDirectory: URL) throws -> (key: String, generated: Bool) {
        if let configured { return (configured, false) }
        let file = dataDirectory.appendingPathComponent("admin-key")
        if let text = try? String(contentsOf: file, encoding: .utf8) {
            let key = text.trimmingCharacters(in: .whitespacesAndNewlines)
            if key.count >= 16 { return (key, false) }
        }
        let key = SecureRandom.token(prefix: "lla_")
        // With PostgreSQL nothing else may have made the data folder yet.
        try? FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let created = FileManager.default.createFile(
            atPath: file.path, contents: Data((key + "\n").utf8), attributes: [.posixPermissions: 0o600]
        )
        guard created else {
            throw ConfigurationError("could not write the admin key to \(file.path); check the data folder's permissions")
        }
        return (key, true)
    }
}
