import Foundation
import Testing
@testable import LivelineStore

struct RowTests {
    let row = Row(
        columns: ["id": 0, "name": 1, "note": 2, "flag": 3, "at": 4, "score": 5, "data": 6],
        values: [.integer(3), .text("Ada"), .null, .integer(1), .integer(1_700_000_000_000), .integer(2), .blob([9])]
    )

    @Test func typedAccessorsReadByName() throws {
        #expect(try row.int("id") == 3)
        #expect(try row.string("name") == "Ada")
        #expect(try row.optionalString("note") == nil)
        #expect(try row.optionalInt("note") == nil)
        #expect(try row.bool("flag"))
        #expect(try row.date("at") == Date(timeIntervalSince1970: 1_700_000_000))
        #expect(try row.optionalDate("note") == nil)
        #expect(try row.double("score") == 2)
        #expect(try row.blob("data") == [9])
        #expect(row["name"] == .text("Ada"))
        #expect(row["missing"] == nil)
        #expect(row.columnNames == ["id", "name", "note", "flag", "at", "score", "data"])
    }

    @Test func missingColumnNamesTheColumnAndTheOnesThereAre() {
        #expect {
            try row.int("user_id")
        } throws: { error in
            let error = error as? StoreError
            return error?.code == .column && error?.message.hasPrefix("the result has no column user_id (it has id, name") == true
        }
    }

    @Test func typeMismatchAndNullAreClearErrors() {
        #expect(throws: StoreError(.column, "column name holds text where an integer was expected")) { try row.int("name") }
        #expect(throws: StoreError(.column, "column note is NULL where text was expected")) { try row.string("note") }
        #expect(throws: StoreError(.column, "column score holds an integer other than 0 or 1 where a boolean was expected")) {
            try row.bool("score")
        }
    }
}
