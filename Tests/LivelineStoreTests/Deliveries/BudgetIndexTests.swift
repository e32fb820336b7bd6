import Foundation
import Testing

@testable import LivelineStore

/// The budget's ledger by token id (migration 19, docs/decisions/the-budget-ledger-by-token-id.md):
/// once its contract step ran, the ledger's reads are planned on its two indexes, and the index
/// ordered by the id's text is gone.
struct BudgetIndexTests {
    @Test(arguments: DatabaseFactory.all)
    func theLedgerIsReadFromTheIndexesByTokenIDAndByChannel(_ factory: DatabaseFactory) throws {
        try factory.withDatabase { database in
            let migrator = Migrator()
            try migrator.migrate(database)
            #expect(try Self.indexes(database).contains("deliveries_budget"), "older builds read it until the contract step")
            #expect(try migrator.contractWhenNoOlderInstance(database, now: Date()).contains(Migration.v19.name))
            #expect(
                try Self.indexes(database) == [
                    "deliveries_attempted", "deliveries_budget_channels", "deliveries_budget_tokens", "deliveries_context",
                ])
            // Without the other indexes a read the budget's indexes cannot serve is a scan.
            try database.write { _ = try $0.executeScript("DROP INDEX deliveries_context; DROP INDEX deliveries_attempted") }
            let tokens = "SELECT id, \(PushTokenRepository.ledgerCount(database.dialect, since: 2)) AS n FROM push_tokens WHERE context_key = $1"
            #expect(try Self.plan(tokens, database).contains("deliveries_budget_tokens"))
            #expect(try Self.plan(DeliveryRepository.ledgerSQL(database.dialect, .token), database).contains("deliveries_budget_tokens"))
            #expect(try Self.plan(DeliveryRepository.ledgerSQL(database.dialect, .channel), database).contains("deliveries_budget_channels"))
        }
    }

    /// A batch of deliveries stops at a bad row without undoing its own earlier rows (`OR FAIL`
    /// on SQLite, ``DeliveryRepository/insert(rows:dialect:)``): the error ends the write, which
    /// rolls them back.
    @Test(arguments: DatabaseFactory.all)
    func aBatchThatFailsPartwayLeavesNoRowOnceItsWriteEnds(_ factory: DatabaseFactory) throws {
        try factory.withStore { store in
            let row: (String) -> [SQLValue] = { kind in
                [.integer(1), .text("trip:1"), .integer(1), .text(kind), .text("7"), .null, .integer(200), .null, .integer(10), .real(1)]
                    + [.integer(0), .null, .null]
            }
            #expect(throws: StoreError.self) {
                try store.write { transaction in
                    _ = try transaction.execute(DeliveryRepository.insert(rows: 2, dialect: store.database.dialect), row("token") + row("neither"))
                }
            }
            let count = try store.database.read { try $0.queryOne("SELECT COUNT(*) AS n FROM deliveries")?.int("n") }
            #expect(count == 0)
        }
    }

    /// The names of `deliveries`' indexes, sorted (PostgreSQL's primary key left out).
    static func indexes(_ database: any Database) throws -> [String] {
        let sql =
            database.dialect == .sqlite
            ? "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'deliveries' AND name NOT LIKE 'sqlite_%'"
            : "SELECT indexname AS name FROM pg_indexes WHERE tablename = 'deliveries' AND schemaname = current_schema() AND indexname <> 'deliveries_pkey'"
        return try database.read { try $0.query(sql).map { try $0.string("name") } }.sorted()
    }

    /// The plan of `sql` (its `$1` a context key, `$2` a time), as one text; PostgreSQL's with
    /// sequential scans priced out, so an index it can use is used on an empty table.
    static func plan(_ sql: String, _ database: any Database) throws -> String {
        let parameters: [SQLValue] = [.text("trip:1"), .integer(0)]
        let lines = try database.write { transaction -> [String] in
            switch database.dialect {
            case .sqlite:
                return try transaction.query("EXPLAIN QUERY PLAN " + sql, parameters).map { try $0.string("detail") }
            case .postgres:
                _ = try transaction.execute("SET LOCAL enable_seqscan = off")
                return try transaction.query("EXPLAIN " + sql, parameters).map { try $0.string("QUERY PLAN") }
            }
        }
        return lines.joined(separator: "\n")
    }
}
