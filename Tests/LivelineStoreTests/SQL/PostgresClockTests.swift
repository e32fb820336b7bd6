import Foundation
import LivelineStore
import LivelineTestSupport
import Testing

/// Instances sharing one PostgreSQL date leases and due times on the database server's clock
/// (``Database/now()``), so one whose own clock is off neither takes back another's live lease nor
/// holds its rows back (`docs/engine.md`, "Storage").
@Suite struct PostgresClockTests {
    /// A PostgreSQL database of the schema of `database`, on a machine whose clock is `skew` off.
    static func instance(of database: PostgresDatabase, skew: TimeInterval) throws -> PostgresDatabase {
        try PostgresDatabase(settings: database.settings, poolSize: 2, systemClock: { Date().addingTimeInterval(skew) })
    }

    @Test func aMachineClockAnHourOffStillGivesTheServersTime() throws {
        let (database, drop) = try TestPostgres.freshDatabase()
        defer { drop() }
        for skew in [3600.0, -3600.0] {
            let skewed = try Self.instance(of: database, skew: skew)
            let before = Date()
            let server = try #require(
                try skewed.read { try $0.queryOne("SELECT CAST(EXTRACT(EPOCH FROM clock_timestamp()) AS DOUBLE PRECISION) AS now") }
            ).double("now")
            let now = skewed.now().timeIntervalSince1970
            // The server runs on this machine: its clock is this machine's true one.
            #expect(abs(server - now) < 1, "skew \(skew): the server says \(server), now() \(now)")
            #expect(abs(now - before.timeIntervalSince1970) < 1)
        }
    }

    @Test func anInstanceWhoseClockIsAheadDoesNotTakeBackALiveLease() throws {
        let (database, drop) = try TestPostgres.freshDatabase()
        defer { drop() }
        let first = try Store.open(database)
        let ahead = try Store.open(try Self.instance(of: database, skew: 120))
        try first.write { transaction in
            try first.outbox.enqueueMessage(
                idempotencyKey: "alert:1", contextKey: nil, target: nil, headers: nil, payload: Array("{}".utf8),
                now: first.database.now(), in: transaction)
        }
        let claimed = try first.outbox.claim(owner: "first", now: first.database.now(), lease: 30, limit: 10)
        #expect(claimed.count == 1)
        // By its own clock, the lease ran out 90 s ago; by the database's, it has 30 s to go.
        #expect(try ahead.outbox.claim(owner: "ahead", now: ahead.database.now(), lease: 30, limit: 10).isEmpty)
        let row = try #require(try first.outbox.row(id: claimed[0].id))
        #expect(row.status == .leased && row.leaseOwner == "first" && row.attempts == 0)
        // Its own clock would have taken the row (what the database's clock prevents).
        #expect(try ahead.outbox.claim(owner: "ahead", now: Date().addingTimeInterval(120), lease: 30, limit: 10).count == 1)
    }
}
