import Foundation
import LivelinePushWire
import LivelineServer
import LivelineStore

/// `liveline backup`: a consistent copy of a data folder's SQLite database, taken while the server
/// runs and writes (``SQLiteBackup``), with the keys the folder keeps (docs/operations.md,
/// "Backups").
enum BackupCommand: CLICommand {
    static let name = "backup"
    static let summary = "copy a running server's SQLite database and keys into a new folder"
    static func help(_ context: CLIContext) -> String {
        """
        Usage:
          liveline backup DEST [--data DIR]

        Writes a new folder DEST (mode 0700) holding a consistent copy of the data folder's
        database (SQLite's online backup API: every change committed before the copy began,
        none after; checked with PRAGMA integrity_check) and the keys the folder keeps
        (\(DataFolderKeys.names.joined(separator: ", ")), where present). Safe while `liveline serve` runs
        and writes: it is not stopped (its WAL is not checkpointed past the copy's read
        while it lasts). DEST may not be inside the data folder. Bring it back with
        `liveline restore DEST`. With PostgreSQL (LIVELINE_DATABASE_URL) use pg_dump
        instead (docs/operations.md, "Backups").

        --data DIR   the data folder [LIVELINE_DATA_DIR, ./liveline-data]
        """
    }

    static func run(_ arguments: [String], context: CLIContext) throws -> Int32 {
        umask(0o077)  // the copy holds the keys and token hashes: the owner's only
        let args = try Arguments(arguments, options: ["data", "database-url"])
        guard args.positionals.count == 1 else { throw CLIError("say where the backup goes: liveline backup DEST") }
        let configuration = try ServeCommand.configuration(args, context: context)
        try DataFolderKeys.refusePostgreSQL(configuration, command: name)
        let destination = URL(fileURLWithPath: args.positionals[0]).standardizedFileURL
        let folder = configuration.dataDirectory.standardizedFileURL.resolvingSymlinksInPath().path + "/"
        guard !(destination.resolvingSymlinksInPath().path + "/").hasPrefix(folder) else {
            throw CLIError("\(destination.path) is inside the data folder; a backup goes elsewhere (it would be lost with the folder)")
        }
        let database = configuration.dataDirectory.appendingPathComponent(SQLiteDatabase.fileName)
        guard FileManager.default.fileExists(atPath: database.path) else {
            throw CLIError("there is no database in \(configuration.dataDirectory.path) (\(SQLiteDatabase.fileName)); say --data DIR")
        }
        try makeEmptyFolder(destination)
        let started = Date()
        let summary: SQLiteBackup.Summary
        do {
            summary = try SQLiteBackup.copy(from: database.path, to: destination.appendingPathComponent(SQLiteDatabase.fileName).path)
        } catch let error as StoreError {
            throw CLIError("the backup failed, \(destination.path) holds no database: \(error.message)")
        }
        let keys = try DataFolderKeys.copy(from: configuration.dataDirectory, to: destination)
        context.print(
            """
            liveline backup: \(destination.path): the database as of \(ISO8601DateFormatter().string(from: summary.asOf)) \
            (\(summary.pages) pages, \(summary.bytes) bytes, integrity_check ok)\(keys.isEmpty ? "" : " and \(keys.joined(separator: ", "))"); \
            took \(String(format: "%.1f", Date().timeIntervalSince(started))) s
            """)
        return 0
    }

    /// Makes `folder` (0700), or takes it when it exists empty; refuses anything else.
    static func makeEmptyFolder(_ folder: URL) throws {
        var isFolder: ObjCBool = false
        if FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder) {
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
            guard isFolder.boolValue, entries.isEmpty else {
                throw CLIError("\(folder.path) exists and is not an empty folder; a backup goes to a new one")
            }
            guard chmod(folder.path, 0o700) == 0 else { throw CLIError("could not make \(folder.path) the owner's only") }
            return
        }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw CLIError("could not make \(folder.path): \(error.localizedDescription)")
        }
    }
}

/// The files besides the database that a data folder keeps and a backup must hold: a server
/// restored without them would make new keys (a new admin key; a new VAPID key, which every
/// browser subscription made with the old one would then fail).
enum DataFolderKeys {
    static let names = [AdminKey.fileName, VAPIDIdentity.keyFileName]

    /// Copies those of `names` that `source` has into `destination` (0600); the names copied.
    static func copy(from source: URL, to destination: URL, replacing: Bool = false) throws -> [String] {
        var copied: [String] = []
        for name in names {
            let from = source.appendingPathComponent(name)
            guard let data = FileManager.default.contents(atPath: from.path) else { continue }
            let to = destination.appendingPathComponent(name)
            if replacing { try? FileManager.default.removeItem(at: to) }
            guard FileManager.default.createFile(atPath: to.path, contents: data, attributes: [.posixPermissions: 0o600]) else {
                throw CLIError("could not write \(to.path)")
            }
            copied.append(name)
        }
        return copied
    }

    /// The SQLite commands' refusal of a PostgreSQL configuration, pointing at pg_dump.
    static func refusePostgreSQL(_ configuration: ServerConfiguration, command: String) throws {
        guard configuration.databaseURL == nil else {
            throw CLIError(
                "the database is PostgreSQL (LIVELINE_DATABASE_URL or --database-url): `liveline \(command)` is for SQLite; use pg_dump and pg_restore (docs/operations.md, \"Backups\")"
            )
        }
    }
}
