import Foundation
import LivelineStore
import Testing

/// Rolling upgrades (docs/operations.md, "Upgrading"): a build serves on a database one
/// expanding migration ahead of it — and works there — but not two, nor one breaking; a contract
/// step waits until no instance of an older build is seen.
struct MigratorCompatibilityTests {
    /// This build ("N") and the next ("N+1", one more migration, which a third adds to).
    static let current = Migrator.liveline
    static let expand = Migration(
        version: 1_001, name: "test: a column and a table the next build uses", compatibility: .expand,
        sql: "ALTER TABLE contexts ADD COLUMN probe_note TEXT; CREATE TABLE probes (id {{primaryKey}}, note TEXT NOT NULL)")
    static let further = Migration(version: 1_002, name: "test: one more", compatibility: .expand, sql: "CREATE TABLE probes_two (x INTEGER)")
    static let breaking = Migration(version: 1_001, name: "test: breaking", sql: "CREATE TABLE probes (id INTEGER)")
    static let contracting = Migration(
        version: 1_001, name: "test: drops the table older builds read", contract: "DROP TABLE probes_old",
        sql: "CREATE TABLE probes (id INTEGER)")

    @Test(arguments: DatabaseFactory.all)
    func aBuildServesAndWorksOnADatabaseOneExpandingMigrationAheadAndBack(_ factory: DatabaseFactory) throws {
        try factory.withDatabase { database in
            try Migrator(migrations: Self.current + [Self.expand]).migrate(database, now: time(0))
            try database.write { _ = try $0.execute("INSERT INTO probes (note) VALUES ('the next build wrote this')") }
            // The build before it opens it, applies nothing, says it is ahead, and works there.
            let older = Migrator(migrations: Self.current)
            #expect(try older.migrate(database, now: time(1)).isEmpty)
            #expect(try older.servedAhead(database) == ["core 1001"])
            let store = Store(database: database)
            _ = try store.makeUser("Ada")
            try store.makeContext()
            try store.change(at: 2)
            #expect(try store.outbox.claim(owner: "older", now: time(3), lease: 30, limit: 10).map(\.contextKey) == ["trip:1"])
            #expect(try store.contexts.revision(key: "trip:1") == 1)
            // The next build again: its column and table are there.
            #expect(try Migrator(migrations: Self.current + [Self.expand]).migrate(database).isEmpty)
            try database.write { _ = try $0.execute("UPDATE contexts SET probe_note = 'seen' WHERE key = 'trip:1'") }
            #expect(try database.read { try $0.queryOne("SELECT COUNT(*) AS n FROM probes")?.int("n") } == 1)
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func twoStepsAheadOrABreakingOneIsRefusedSayingWhatToDo(_ factory: DatabaseFactory) throws {
        try factory.withDatabase { database in
            try Migrator(migrations: Self.current + [Self.expand, Self.further]).migrate(database)
            #expect { try Migrator(migrations: Self.current).migrate(database) } throws: {
                let message = ($0 as? StoreError)?.message ?? ""
                return ($0 as? StoreError)?.code == .schemaTooNew && message.contains("schema version 1002")
                    && message.contains("upgrade instances through each version in turn")
            }
            // The build that knows 1001 serves on it.
            #expect(try Migrator(migrations: Self.current + [Self.expand]).servedAhead(database) == ["core 1002"])
            #expect(try Migrator(migrations: Self.current + [Self.expand]).migrate(database).isEmpty)
        }
        try factory.withDatabase { database in
            try Migrator(migrations: Self.current + [Self.breaking]).migrate(database)
            #expect { try Migrator(migrations: Self.current).migrate(database) } throws: {
                let message = ($0 as? StoreError)?.message ?? ""
                return message.contains("written by a newer Liveline (schema version 1001") && !message.contains("in turn")
            }
        }
    }

    @Test(arguments: DatabaseFactory.all)
    func aContractStepWaitsUntilNoOlderInstanceIsSeenThenOlderBuildsAreRefused(_ factory: DatabaseFactory) throws {
        try factory.withDatabase { database in
            let older = Migrator(migrations: Self.current)
            try older.migrate(database)
            // The database as this build serves it: its own contract steps ran.
            _ = try older.contractWhenNoOlderInstance(database, now: time(0))
            try database.write { _ = try $0.executeScript("CREATE TABLE probes_old (id INTEGER)") }
            let next = Migrator(migrations: Self.current + [Self.contracting])
            let registry = InstanceRegistry(database: database)
            try registry.heartbeat(id: "old", versions: older.knownVersions, now: time(0))
            try next.migrate(database)
            try registry.heartbeat(id: "new", versions: next.knownVersions, now: time(0))
            #expect(next.knownVersions.hasPrefix("core:1001"))

            #expect(try next.contractWhenNoOlderInstance(database, now: time(30)).isEmpty, "an older instance serves")
            #expect(try older.migrate(database).isEmpty, "and may: it is still served from the version before")
            #expect(try database.read { try $0.query("SELECT * FROM probes_old") }.isEmpty)
            // The old instance stops beating; a minute later it counts as gone.
            try registry.heartbeat(id: "new", versions: next.knownVersions, now: time(61))
            #expect(try next.contractWhenNoOlderInstance(database, now: time(61)) == [Self.contracting.name])
            #expect(throws: StoreError.self) { try database.read { try $0.query("SELECT * FROM probes_old") } }
            #expect(try next.contractWhenNoOlderInstance(database, now: time(62)).isEmpty, "once")
            #expect { try older.migrate(database) } throws: { ($0 as? StoreError)?.code == .schemaTooNew }
            try registry.remove(id: "new")
            #expect(
                try database.read { try $0.query("SELECT id FROM liveline_instances").map { try $0.string("id") } } == ["old"],
                "a dead one's row stays, unseen")
        }
    }
}
