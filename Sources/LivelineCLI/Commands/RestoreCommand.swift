import Foundation
import LivelineServer
import LivelineStore

#if canImport(Glibc)
import Glibc
#endif

/// `liveline restore`: a folder made by `liveline backup` back into a data folder, while no
/// server runs on it (docs/operations.md, "Backups").
enum RestoreCommand: CLICommand {
    static let name = "restore"
    static let summary = "bring a folder made by liveline backup back into a data folder"
    static func help(_ context: CLIContext) -> String {
        """
        Usage:
          liveline restore SOURCE [--data DIR] [--replace]

        Copies the database and keys of SOURCE (a folder made by `liveline backup`) into the
        data folder, checks the copy with PRAGMA integrity_check and brings its schema to this
        build's. The restored database is the one of the backup: changes made after the
        backup was taken are not in it. Pushes that were waiting in its outbox, or in flight
        when the backup was taken, are sent when `liveline serve` starts (at least once, as
        after a crash). Refused while a server runs on the folder.

        --data DIR   the data folder [LIVELINE_DATA_DIR, ./liveline-data]; made when missing
        --replace    restore over a folder that has a database or other keys: they are kept
                     beside, renamed with .replaced-TIME
        """
    }

    static func run(_ arguments: [String], context: CLIContext) throws -> Int32 {
        umask(0o077)  // every file it writes holds secrets: the owner's only
        let args = try Arguments(arguments, options: ["data", "database-url"], flags: ["replace"])
        guard args.positionals.count == 1 else { throw CLIError("say which backup to restore: liveline restore SOURCE") }
        let configuration = try ServeCommand.configuration(args, context: context)
        try DataFolderKeys.refusePostgreSQL(configuration, command: name)
        let source = URL(fileURLWithPath: args.positionals[0]).standardizedFileURL
        let data = configuration.dataDirectory.standardizedFileURL
        let backup = source.appendingPathComponent(SQLiteDatabase.fileName)
        guard FileManager.default.fileExists(atPath: backup.path) else {
            throw CLIError("\(source.path) holds no \(SQLiteDatabase.fileName): say a folder made by liveline backup")
        }
        guard source.resolvingSymlinksInPath() != data.resolvingSymlinksInPath() else {
            throw CLIError("\(source.path) is the data folder itself; restore a backup into another folder (--data DIR)")
        }
        try? FileManager.default.createDirectory(at: data, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let database = data.appendingPathComponent(SQLiteDatabase.fileName)
        let lock: Int32
        do {
            lock = try SQLiteDatabase.lockServer(databasePath: database.path)
        } catch let error as StoreError {
            throw CLIError("\(error.message)\nNothing was restored.")
        }
        defer { close(lock) }
        // Copied, checked and migrated beside the folder's files; they are moved only once it is ready.
        let staged = data.appendingPathComponent(SQLiteDatabase.fileName + ".restoring")
        let outbox: (pending: Int, inFlight: Int)
        do {
            removeStaged(staged)
            _ = try SQLiteBackup.copy(from: backup.path, to: staged.path)
            outbox = try prepare(staged, features: context.features.map(\.featureMigrations))
        } catch let error as StoreError {
            removeStaged(staged)
            throw CLIError("\(error.message)\nNothing was restored: \(data.path) is as it was.")
        }
        let keptAside = try moveAside(in: data, restoring: source, replacing: args.flag("replace"), staged: staged)
        try putInPlace(staged, as: database)
        let keys = try DataFolderKeys.copy(from: source, to: data, replacing: true)
        context.print(report(data: data, source: source, keys: keys, pending: outbox.pending, inFlight: outbox.inFlight, keptAside: keptAside))
        return 0
    }

    /// Brings the copy at `staged` to this build's schema and ends its outbox leases (no process
    /// holds them now); its outbox rows waiting, and how many of them were in flight. Every
    /// connection to it is closed on return.
    static func prepare(_ staged: URL, features: [FeatureMigrations]) throws -> (pending: Int, inFlight: Int) {
        let store = try Store.open(SQLiteDatabase(path: staged.path), features: features)
        defer { store.database.close() }
        let inFlight = try store.outbox.expireAllLeases()
        let depth = try store.outbox.depth(now: Date())
        return (depth.due + depth.leased, inFlight)
    }

    /// Renames the prepared copy (and a WAL SQLite left beside it) into place, flushed.
    static func putInPlace(_ staged: URL, as database: URL) throws {
        try? FileManager.default.removeItem(atPath: staged.path + "-shm")
        for suffix in ["-wal", ""] where FileManager.default.fileExists(atPath: staged.path + suffix) {
            guard rename(staged.path + suffix, database.path + suffix) == 0 else {
                throw CLIError("could not rename \(staged.path + suffix) into place: \(String(cString: strerror(errno)))")
            }
        }
        try SQLiteBackup.flushFolder(of: database.path)
    }

    static func removeStaged(_ staged: URL) {
        for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: staged.path + suffix) }
    }

    /// What the restore did, for a person.
    static func report(data: URL, source: URL, keys: [String], pending: Int, inFlight: Int, keptAside: [String]) -> String {
        var lines = [
            "liveline restore: \(data.path) holds the database of \(source.path)\(keys.isEmpty ? "" : " and \(keys.joined(separator: ", "))"), integrity_check ok; changes made after the backup are not in it",
            "  \(pending) pushes waiting in the outbox (\(inFlight) of them in flight at the backup), sent when liveline serve starts",
        ]
        if !keptAside.isEmpty { lines.append("  kept beside: \(keptAside.joined(separator: ", "))") }
        return lines.joined(separator: "\n")
    }

    /// The data folder's database (with its WAL) and keys that the restore would overwrite —
    /// a key the same as the backup's is not in the way: with `replacing`, renamed with
    /// `.replaced-TIME` (their new names); else the restore is refused, naming them.
    static func moveAside(in data: URL, restoring source: URL, replacing: Bool, staged: URL) throws -> [String] {
        let database = SQLiteDatabase.fileName
        var inTheWay = [database, database + "-wal", database + "-shm"].filter {
            FileManager.default.fileExists(atPath: data.appendingPathComponent($0).path)
        }
        for key in DataFolderKeys.names {
            let present = FileManager.default.contents(atPath: data.appendingPathComponent(key).path)
            if let present, present != FileManager.default.contents(atPath: source.appendingPathComponent(key).path) { inTheWay.append(key) }
        }
        guard !inTheWay.isEmpty else { return [] }
        guard replacing else {
            removeStaged(staged)
            throw CLIError(
                "\(data.path) has \(inTheWay.joined(separator: ", ")), which the restore would replace; nothing was restored. Say --replace to keep them beside, renamed, or restore into an empty folder (--data DIR)"
            )
        }
        let suffix = ".replaced-" + ISO8601DateFormatter().string(from: Date()).replacingOccurrences(of: ":", with: "")
        return try inTheWay.map { name in
            let renamed = name.hasPrefix(database + "-") ? database + suffix + name.dropFirst(database.count) : name + suffix
            do {
                try FileManager.default.moveItem(at: data.appendingPathComponent(name), to: data.appendingPathComponent(renamed))
            } catch {
                removeStaged(staged)
                throw CLIError("could not rename \(name) in \(data.path): \(error.localizedDescription); nothing was restored")
            }
            return renamed
        }
    }
}
