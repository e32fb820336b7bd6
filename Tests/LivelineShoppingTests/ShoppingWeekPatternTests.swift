import Foundation
import LivelineModel
import LivelineTestSupport
import Testing

@testable import LivelineShopping

/// The week's pattern (``ShoppingWeek/pattern``) is exactly the Mondays ``ShoppingWeek`` takes:
/// the pattern (which the server's rule stands in for with the type's arithmetic) checked against the type for every day of a whole 400-year cycle and
/// for the first week of every year (each class of centuries, year 0001 to 9999), and the printed
/// schema by jsonschema-rs (what schemathesis validates with) against Python's calendar.
@Suite struct ShoppingWeekPatternTests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// `YYYY-MM-DD` of every day of 2000 to 2399 (one cycle), and 1 to 7 January of every year.
    static var days: [String] {
        var days: [String] = []
        for year in 2000..<2400 {
            for month in 1...12 {
                for day in 1...ShoppingWeek.days(inMonth: month, year: year) { days.append(text(year, month, day)) }
            }
        }
        for year in 1...9999 { for day in 1...7 { days.append(text(year, 1, day)) } }
        return days
    }

    static func text(_ year: Int, _ month: Int, _ day: Int) -> String { String(format: "%04d-%02d-%02d", year, month, day) }

    @Test func thePatternMatchesExactlyTheMondaysTheTypeTakes() {
        var mismatches: [String] = []
        for day in Self.days + ["0000-01-03", "0000-01-01", "2026-02-29", "2026-13-06", "2026-01-05\n", "2026-1-05", "10000-01-03"]
        where ShoppingFields.isoMonday.matchesPattern(day) != (ShoppingWeek(day) != nil)
            || ShoppingFields.week.accepts(day) != (ShoppingWeek(day) != nil)
        {
            mismatches.append(day)
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(10))")
        #expect(ShoppingFields.week.accepts("2026-01-05") && !ShoppingFields.week.accepts("2026-01-06"))
    }

    @Test func thePrintedSchemaTakesExactlyTheMondaysOfPythonsCalendar() throws {
        let python = Self.root.appendingPathComponent(".venv/bin/python")
        try #require(FileManager.default.isExecutableFile(atPath: python.path), "run scripts/test-venv.sh (creates .venv with jsonschema-rs)")
        let script = """
            import datetime, json, sys, jsonschema_rs
            valid = jsonschema_rs.Draft202012Validator(json.load(sys.stdin), validate_formats=True).is_valid
            days = [datetime.date(2000, 1, 1) + datetime.timedelta(days=n) for n in range(146097)]
            days += [datetime.date(year, 1, day) for year in range(1, 10000) for day in range(1, 8)]
            wrong = [d.isoformat() for d in days if valid(d.isoformat()) != (d.weekday() == 0)]
            wrong += [text for text in ["0000-01-03", "2026-02-29", "2026-01-05 ", "2026-01-05T00:00:00Z"] if valid(text)]
            print(json.dumps({"checked": len(days), "wrong": wrong[:10]}))
            """
        let result = try ChildProcess.run(python.path, ["-c", script], input: ShoppingFields.week.schema.compactJSON)
        #expect(result.termination == .exited(0), "\(String(decoding: result.errors, as: UTF8.self))")
        let answer = try #require(try JSONSerialization.jsonObject(with: result.output) as? [String: Any])
        #expect(answer["checked"] as? Int == 146_097 + 9999 * 7)
        #expect((answer["wrong"] as? [String])?.isEmpty == true, "\(answer)")
    }
}
