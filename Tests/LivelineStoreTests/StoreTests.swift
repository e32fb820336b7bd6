import Foundation
import LivelineStore
import Testing

struct StoreTests {
    @Test func theDatabaseFilesAreReadableByTheOwnerOnly() throws {
        try TemporaryFolder.with { parent in
            // An existing folder with a lax mode: the files are still made private.
            let folder = parent.appendingPathComponent("data")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
            let store = try Store.openSQLite(folder: folder)
            _ = try store.accounts.createUser(household: "H", name: "N", avatarTint: "azure", emoji: "x", locale: "de", tokenHash: "h", now: Date())
            for name in ["liveline.sqlite", "liveline.sqlite-wal", "liveline.sqlite-shm"] {
                let path = folder.appendingPathComponent(name).path
                let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
                #expect(mode == 0o600, "\(name): \(String(mode ?? 0, radix: 8))")
            }
        }
    }
}
