import Foundation

/// Liveline's storage: one database and the repositories over it.
///
/// Open it with ``openSQLite(folder:)`` (the embedded default) or ``open(_:)`` for any
/// ``Database``; both migrate the schema first (`docs/engine.md`, "Storage": created and migrated on start).
public struct Store: Sendable {
    public let database: any Database
    public let accounts: AccountRepository
    public let tokens: PushTokenRepository
    public let contexts: ContextRepository
    public let outbox: OutboxRepository
    public let deliveries: DeliveryRepository
    public let starts: StartRepository
    public let renewals: RenewalRepository
    public let reports: ActivityReportRepository
    public let channels: ChannelRepository
    public let notifications: NotificationRepository
    /// Versions of the contracts loaded at run time.
    public let contracts: ContractRepository
    /// Context revisions as last read, while nothing committed since (see ``RevisionCache``).
    public let revisions: RevisionCache
    /// The migrations this opening applied (none when the schema was up to date), in order.
    public let appliedMigrations: [Migration]
    /// The serving instances and their builds (rolling upgrades).
    public var instances: InstanceRegistry { InstanceRegistry(database: database) }

    /// The repositories over `database`, as it is (no migration).
    public init(database: any Database, appliedMigrations: [Migration] = []) {
        self.database = database
        self.appliedMigrations = appliedMigrations
        accounts = AccountRepository(database: database)
        tokens = PushTokenRepository(database: database)
        outbox = OutboxRepository(database: database)
        contexts = ContextRepository(database: database, outbox: outbox)
        deliveries = DeliveryRepository(database: database)
        starts = StartRepository(database: database)
        renewals = RenewalRepository(database: database)
        reports = ActivityReportRepository(database: database)
        channels = ChannelRepository(database: database)
        notifications = NotificationRepository(database: database)
        contracts = ContractRepository(database: database)
        revisions = RevisionCache(database: database)
        // Another instance's commit may have made rows due: the dispatchers look again.
        // Token lists cached from this instance's own writes are read again too. (The counters
        // only: a handler holding the database would keep it open for good.)
        database.onChangesElsewhere { [enqueued = outbox.enqueued, tokenChanges = tokens.changes] in
            enqueued.bump()
            tokenChanges.bump()
        }
    }

    /// Runs `body` in one write transaction and, once it committed, wakes the outbox's dispatchers
    /// (``OutboxRepository/enqueued``).
    ///
    /// The way for a domain mutation to record a change: write the domain rows and call
    /// ``ContextRepository/recordChange(key:now:note:in:)`` in `body` (`docs/engine.md`, "The
    /// transactional outbox and the dispatcher": one transaction). The bump comes after the
    /// commit, so a woken dispatcher sees the rows; a body that enqueued nothing costs a
    /// dispatcher one empty claim, unless `enqueued` says from its result that it wrote no row.
    @discardableResult
    public func write<T>(_ body: (any SQLTransaction) throws -> T, enqueued: (T) -> Bool = { _ in true }) throws -> T {
        let result = try database.write(body)
        if enqueued(result) { outbox.notifyEnqueued() }
        return result
    }

    /// Migrates `database` to this build's schema (the core's, then `features`' migrations) and
    /// returns the store over it.
    ///
    /// Throws `.schemaTooNew` for a database written by a newer Liveline.
    public static func open(_ database: any Database, features: [FeatureMigrations] = [], now: Date = Date()) throws -> Store {
        let applied = try Migrator(features: features).migrate(database, now: now)
        return Store(database: database, appliedMigrations: applied)
    }

    /// Opens (creating when needed) `<folder>/liveline.sqlite` and migrates it (the core's, then
    /// `features`' migrations).
    ///
    /// A missing folder is created readable by its owner only (0700): it holds token hashes and
    /// push tokens.
    public static func openSQLite(folder: URL, features: [FeatureMigrations] = [], now: Date = Date(), asServer: Bool = false) throws -> Store {
        do {
            try FileManager.default.createDirectory(
                at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700]
            )
        } catch {
            throw StoreError(.io, "could not create the data folder \(folder.path): \(error.localizedDescription)")
        }
        // A server takes the lock before it opens (and may create or migrate) the file: no second
        // server and no `liveline restore` is then at work on it.
        let lock = asServer ? try SQLiteDatabase.lockServer(databasePath: folder.appendingPathComponent(SQLiteDatabase.fileName).path) : -1
        let database: SQLiteDatabase
        do {
            database = try SQLiteDatabase(folder: folder)
        } catch {
            if lock >= 0 { close(lock) }
            throw error
        }
        if lock >= 0 { database.adoptServerLock(lock) }
        // The database holds token hashes and push tokens: owner only. SQLite gives its -wal and
        // -shm files the main file's mode.
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: database.path + suffix) {
            try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: database.path + suffix)
        }
        return try open(database, features: features, now: now)
    }
}
