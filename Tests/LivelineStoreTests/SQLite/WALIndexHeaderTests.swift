import Foundation
import Testing

@testable import LivelineStore

/// The WAL index header the session cache looks at before asking `PRAGMA data_version`.
struct WALIndexHeaderTests {
    @Test func aReadOnlyConnectionSeesTheHeaderMoveWithEveryCommitAndOnlyThen() throws {
        try TemporaryFolder.with { folder in
            let database = try SQLiteDatabase(folder: folder)
            try database.write { try $0.executeScript("CREATE TABLE t (x INTEGER)") }
            let reader = try SQLiteConnection(path: database.path, readOnly: true)
            _ = try reader.dataVersion()
            let before = try #require(reader.walIndexHeader())
            #expect(reader.walIndexHeader() == before)
            _ = try database.read { try $0.query("SELECT x FROM t") }
            #expect(reader.walIndexHeader() == before, "a read moved it")
            try database.write { try $0.execute("INSERT INTO t (x) VALUES (1)", []) }
            #expect(reader.walIndexHeader() != before, "a commit did not move it")
        }
    }
}
