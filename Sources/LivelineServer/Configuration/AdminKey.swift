import Foundation
import LivelineCrypto

/// The admin key of the `/v1` API: from configuration, or generated once and kept in
/// `<data>/admin-key` (mode 0600) so it survives restarts.
public enum AdminKey {
    /// The file in the data folder that keeps a generated key.
    public static let fileName = "admin-key"

    /// The key and whether it was generated just now (then the caller prints it once).
    public static func loadOrCreate(configured: String?, dataDirectory: URL) throws -> (key: String, generated: Bool) {
        if let configured { return (configured, false) }
        let file = dataDirectory.appendingPathComponent(fileName)
        if let kept = try read(file) { return (kept, false) }
        let key = SecureRandom.token(prefix: "lla_")
        // With PostgreSQL nothing else may have made the data folder yet.
        try? FileManager.default.createDirectory(at: dataDirectory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        // 0600 from the first byte, and only if absent: a second server starting on the folder at
        // the same moment keeps the first one's key.
        let created: Bool
        do {
            created = try SecretFile.create(at: file, contents: Array((key + "\n").utf8))
        } catch {
            throw ConfigurationError("could not write the admin key to \(file.path) (\(error)); check the data folder's permissions")
        }
        if created { return (key, true) }
        guard let kept = try read(file) else { throw ConfigurationError("the admin key in \(file.path) cannot be read") }
        return (kept, false)
    }

    /// The key kept in `file`; nil when there is no file. A file whose key is shorter than 16
    /// characters is refused (it is not replaced: it may be someone's).
    private static func read(_ file: URL) throws -> String? {
        guard let text = try? String(contentsOf: file, encoding: .utf8) else { return nil }
        let key = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard key.count >= 16 else {
            throw ConfigurationError(
                "the admin key in \(file.path) is shorter than 16 characters: remove the file to have a new one made, or set LIVELINE_ADMIN_KEY")
        }
        return key
    }
}
