import Foundation
import LivelineCrypto
import LivelineStore
import LivelineTestSupport
import Testing

/// `liveline backup` and `liveline restore` in-process, on folders: what they refuse, leaving
/// everything as it was, and what they write (docs/operations.md, "Backups"). The copy under
/// writes and the restored server: `BackupProcessTests`, `SQLiteBackupTests`.
@Suite struct BackupCommandTests {
    /// A data folder with a user, a context followed by a token, and one push in flight (leased).
    static func dataFolder(_ folder: URL) throws {
        let store = try Store.openSQLite(folder: folder)
        let user = try store.accounts.createUser(
            household: "Fisch", name: "Dennis", avatarTint: "azure", emoji: "🐟", locale: "de", tokenHash: SHA256.hex("ll_x"), now: Date())
        _ = user
        try store.write { transaction in
            _ = try store.contexts.create(
                key: "trip:1", activityType: "TripLiveActivityAttributes", householdID: nil, attributes: #"{"line":"5"}"#, contentState: nil,
                now: Date(), in: transaction)
            _ = try store.contexts.recordChange(key: "trip:1", now: Date(), in: transaction)
        }
        #expect(try store.outbox.claim(owner: "before-backup", now: Date(), lease: 3_600, limit: 10).count == 1)
        try Data("lla_kept-admin-key\n".utf8).write(to: folder.appendingPathComponent("admin-key"))
    }

    static func inTemporaryFolder(_ body: (URL) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("liveline-backup-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        try body(folder)
    }

    static func mode(_ path: URL) throws -> Int? { try FileManager.default.attributesOfItem(atPath: path.path)[.posixPermissions] as? Int }

    @Test func aBackupIsTheOwnersOnlyAndARestoreBringsItBackWithThePushInFlightDueAgain() throws {
        try Self.inTemporaryFolder { folder in
            let (data, backup, fresh) = (
                folder.appendingPathComponent("data"), folder.appendingPathComponent("backup"), folder.appendingPathComponent("fresh")
            )
            try Self.dataFolder(data)
            let output = CapturedOutput()
            #expect(output.run(["backup", backup.path, "--data", data.path]) == 0, "\(output.standardError)")
            #expect(output.standardOutput.contains("integrity_check ok) and admin-key"), "\(output.standardOutput)")
            #expect(try Self.mode(backup) == 0o700)
            #expect(try Self.mode(backup.appendingPathComponent("liveline.sqlite")) == 0o600)
            #expect(try Self.mode(backup.appendingPathComponent("admin-key")) == 0o600)

            #expect(output.run(["restore", backup.path, "--data", fresh.path]) == 0, "\(output.standardError)")
            #expect(output.standardOutput.contains("1 pushes waiting in the outbox (1 of them in flight at the backup)"), "\(output.standardOutput)")
            let restored = try Store.openSQLite(folder: fresh)
            #expect(try restored.accounts.users().map(\.name) == ["Dennis"])
            #expect(try restored.outbox.claim(owner: "restored", now: Date(), lease: 30, limit: 10).count == 1, "the lease is over")
            #expect(try String(contentsOf: fresh.appendingPathComponent("admin-key"), encoding: .utf8) == "lla_kept-admin-key\n")
            #expect(!FileManager.default.fileExists(atPath: fresh.appendingPathComponent("liveline.sqlite.restoring").path))
        }
    }

    @Test func aRestoreOverADatabaseIsRefusedUnlessReplaceWhichKeepsItBeside() throws {
        try Self.inTemporaryFolder { folder in
            let (data, backup, other) = (
                folder.appendingPathComponent("data"), folder.appendingPathComponent("backup"), folder.appendingPathComponent("other")
            )
            try Self.dataFolder(data)
            let output = CapturedOutput()
            #expect(output.run(["backup", backup.path, "--data", data.path]) == 0)
            _ = try Store.openSQLite(folder: other).accounts.createUser(
                household: "Other", name: "Olga", avatarTint: "coral", emoji: "🐙", locale: "en", tokenHash: SHA256.hex("ll_o"), now: Date())
            // The server lock's file is the restore's to take, as a server's.
            let files = { try FileManager.default.contentsOfDirectory(atPath: other.path).filter { !$0.hasSuffix(".serve-lock") }.sorted() }
            let before = try files()

            #expect(output.run(["restore", backup.path, "--data", other.path]) != 0)
            #expect(output.standardError.contains("which the restore would replace; nothing was restored"), "\(output.standardError)")
            #expect(try files() == before, "nothing changed")

            #expect(output.run(["restore", backup.path, "--data", other.path, "--replace"]) == 0, "\(output.standardError)")
            #expect(try Store.openSQLite(folder: other).accounts.users().map(\.name) == ["Dennis"])
            let kept = try #require(
                try FileManager.default.contentsOfDirectory(atPath: other.path).first {
                    $0.hasPrefix("liveline.sqlite.replaced-") && !$0.contains("-wal") && !$0.contains("-shm")
                })
            #expect(try Store.open(SQLiteDatabase(path: other.appendingPathComponent(kept).path)).accounts.users().map(\.name) == ["Olga"])
        }
    }

    @Test func whatARestoreRefusesLeavesTheFolderAsItWas() throws {
        try Self.inTemporaryFolder { folder in
            let (data, backup, newer, fresh) = (
                folder.appendingPathComponent("data"), folder.appendingPathComponent("backup"), folder.appendingPathComponent("newer"),
                folder.appendingPathComponent("fresh")
            )
            try Self.dataFolder(data)
            let output = CapturedOutput()
            #expect(output.run(["backup", backup.path, "--data", data.path]) == 0)

            // Onto itself.
            #expect(output.run(["restore", backup.path, "--data", backup.path, "--replace"]) != 0)
            #expect(output.standardError.contains("is the data folder itself"), "\(output.standardError)")
            #expect(FileManager.default.fileExists(atPath: backup.appendingPathComponent("liveline.sqlite").path))

            // A backup of a newer build's database.
            try FileManager.default.copyItem(at: backup, to: newer)
            try SQLiteDatabase(path: newer.appendingPathComponent("liveline.sqlite").path).write {
                _ = try $0.execute("INSERT INTO schema_migrations (version, name, applied_at) VALUES (999, 'from the future', 0)")
            }
            #expect(output.run(["restore", newer.path, "--data", fresh.path]) != 0)
            #expect(output.standardError.contains("newer Liveline") && output.standardError.contains("is as it was"), "\(output.standardError)")
            #expect(try FileManager.default.contentsOfDirectory(atPath: fresh.path).filter { !$0.hasSuffix(".serve-lock") } == [])

            // While a server holds the folder.
            let lock = try SQLiteDatabase.lockServer(databasePath: fresh.appendingPathComponent("liveline.sqlite").path)
            defer { close(lock) }
            #expect(output.run(["restore", backup.path, "--data", fresh.path]) != 0)
            #expect(output.standardError.contains("another liveline server"), "\(output.standardError)")
            #expect(!FileManager.default.fileExists(atPath: fresh.appendingPathComponent("liveline.sqlite").path))
        }
    }

    @Test func aBackupIsRefusedInsideTheDataFolderIntoAFolderWithFilesAndFromPostgreSQL() throws {
        try Self.inTemporaryFolder { folder in
            let data = folder.appendingPathComponent("data")
            try Self.dataFolder(data)
            let output = CapturedOutput()
            #expect(output.run(["backup", data.appendingPathComponent("inside").path, "--data", data.path]) != 0)
            #expect(output.standardError.contains("is inside the data folder"), "\(output.standardError)")
            #expect(output.run(["backup", data.path, "--data", data.path]) != 0)
            #expect(output.run(["backup", folder.appendingPathComponent("b").path, "--data", folder.appendingPathComponent("none").path]) != 0)
            #expect(output.standardError.contains("there is no database in"), "\(output.standardError)")
            output.environment["LIVELINE_DATABASE_URL"] = "postgresql://liveline@127.0.0.1/liveline"
            #expect(output.run(["backup", folder.appendingPathComponent("c").path]) != 0)
            #expect(output.standardError.contains("use pg_dump and pg_restore"), "\(output.standardError)")
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("c").path))
        }
    }
}
