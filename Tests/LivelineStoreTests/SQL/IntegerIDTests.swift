import Foundation
import LivelineStore
import Testing

/// The typed ids read and write as the plain number everywhere, so no stored row, outbox
/// message or API body changed when they came in.
@Suite struct IntegerIDTests {
    struct Body: Codable, Equatable {
        var householdID: HouseholdID
        var userID: UserID
        var tokenID: PushTokenID?
    }

    @Test func jsonTextAndSQLSeeThePlainNumber() throws {
        let body = Body(householdID: 7, userID: UserID(42), tokenID: PushTokenID(rawValue: 9))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let json = String(decoding: try encoder.encode(body), as: UTF8.self)
        #expect(json == #"{"householdID":7,"tokenID":9,"userID":42}"#)
        #expect(try JSONDecoder().decode(Body.self, from: Data(#"{"householdID":7,"userID":42}"#.utf8)) == Body(householdID: 7, userID: 42))
        #expect("shopping:\(HouseholdID(3)):2026-01-05" == "shopping:3:2026-01-05")
        #expect(SQLValue(UserID(42)) == .integer(42) && SQLValue(nil as HouseholdID?) == .null)
        #expect([UserID(3), UserID(1), UserID(2)].sorted() == [1, 2, 3])
    }

    @Test func aNumberThatIsNotAnIntegerIsRefused() {
        #expect(throws: DecodingError.self) { try JSONDecoder().decode(Body.self, from: Data(#"{"householdID":"7","userID":1}"#.utf8)) }
    }
}
