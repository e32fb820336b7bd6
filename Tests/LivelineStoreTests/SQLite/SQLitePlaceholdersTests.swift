import Testing
@testable import LivelineStore

struct SQLitePlaceholdersTests {
    @Test func dollarNumbersBecomeNumberedQuestionMarks() {
        #expect(SQLitePlaceholders.rewrite("SELECT $1, $12 WHERE a = $1") == "SELECT ?1, ?12 WHERE a = ?1")
    }

    @Test func stringsIdentifiersAndCommentsAreLeftAlone() {
        let sql = "SELECT '$1', 'it''s $2', \"col$3\", $4 -- $5\n, /* $6 */ $7"
        #expect(SQLitePlaceholders.rewrite(sql) == "SELECT '$1', 'it''s $2', \"col$3\", ?4 -- $5\n, /* $6 */ ?7")
    }

    @Test func dollarInsideAnIdentifierIsNotAPlaceholder() {
        #expect(SQLitePlaceholders.rewrite("SELECT a$1, $ FROM t") == "SELECT a$1, $ FROM t")
    }
}
