import Foundation
import Testing
@testable import LivelineStore

struct SQLValueTests {
    @Test func literalsAndInitialisersPickTheStorageClass() {
        let values: [SQLValue] = [nil, 7, 2.5, "x", true, false]
        #expect(values == [.null, .integer(7), .real(2.5), .text("x"), .integer(1), .integer(0)])
        #expect(SQLValue(Int?.none) == .null)
        #expect(SQLValue(String?.some("a")) == .text("a"))
        #expect(SQLValue(Date?.none) == .null)
        #expect(SQLValue([UInt8]([1, 2])) == .blob([1, 2]))
    }

    @Test func datesAreUnixMillisecondsRoundedDown() {
        let date = Date(timeIntervalSince1970: 1_700_000_000.123_9)
        #expect(SQLValue(date) == .integer(1_700_000_000_123))
        #expect(SQLValue.date(milliseconds: 1_700_000_000_123).timeIntervalSince1970 == 1_700_000_000.123)
        #expect(SQLValue(Date(timeIntervalSince1970: -0.0005)) == .integer(-1))
    }
}
