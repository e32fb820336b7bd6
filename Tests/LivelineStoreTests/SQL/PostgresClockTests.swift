import Foundation
import LivelineStore
import LivelineTestSupport
import Testing

/// Instances sharing one PostgreSQL date leases and due times on the database server's clock
/// (``Database/now()``): its time when last measured plus the time passed since on this machine's
/// monotonic clock, so an instance's own wall clock — off, or stepped — plays no part
/// (`docs/engine.md`, "Storage").
@Suite struct PostgresClockTests {
    static func serverTime(_ database: PostgresDatabase) throws -> Double {
        try #require(
            try database.read { try $0.queryOne("SELECT CAST(EXTRACT(EPOCH FROM clock_timestamp()) AS DOUBLE PRECISION) AS now") }
        ).double("now")
    }

    @Test func nowIsTheServersClockOnEveryInstance() throws {
        let (database, drop) = try TestPostgres.freshDatabase()
        defer { drop() }
        let other = try PostgresDatabase(settings: database.settings, poolSize: 2)
        defer { other.close() }
        for _ in 0..<20 {
            let before = database.now().timeIntervalSince1970
            let server = try Self.serverTime(database)
            let after = database.now().timeIntervalSince1970
            // The server's reading lies between two of ours (up to half a round trip each way).
            #expect(before - 0.05 <= server && server <= after + 0.05, "\(before) ≤ \(server) ≤ \(after)")
            #expect(abs(other.now().timeIntervalSince(database.now())) < 0.05, "two instances agree")
            Thread.sleep(forTimeInterval: 0.01)
        }
    }

    @Test func aLiveLeaseIsNotTakenBackByAClaimDatedByTheDatabase() throws {
        let (database, drop) = try TestPostgres.freshDatabase()
        defer { drop() }
        let first = try Store.open(database)
        let second = try Store.open(try PostgresDatabase(settings: database.settings, poolSize: 2))
        defer { second.database.close() }
        try first.write { transaction in
            try first.outbox.enqueueMessage(
                idempotencyKey: "alert:1", contextKey: nil, target: nil, headers: nil, payload: Array("{}".utf8),
                now: first.database.now(), in: transaction)
        }
        let claimed = try first.outbox.claim(owner: "first", now: first.database.now(), lease: 30, limit: 10)
        #expect(claimed.count == 1)
        #expect(try second.outbox.claim(owner: "second", now: second.database.now(), lease: 30, limit: 10).isEmpty)
        let row = try #require(try first.outbox.row(id: claimed[0].id))
        #expect(row.status == .leased && row.leaseOwner == "first" && row.attempts == 0)
        // A clock two minutes ahead would have taken it (what dating by the database prevents).
        #expect(try second.outbox.claim(owner: "second", now: second.database.now().addingTimeInterval(120), lease: 30, limit: 10).count == 1)
    }
}
