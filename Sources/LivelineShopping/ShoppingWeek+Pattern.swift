extension ShoppingWeek {
    /// The regular expression of exactly the text ``init(_:)`` takes: the ISO date of a Monday,
    /// years 0001 to 9999. Made from this type's own calendar arithmetic, so the two cannot
    /// disagree (`Tests/LivelineShoppingTests/ShoppingWeekPatternTests.swift` checks every day of
    /// a whole cycle and every year).
    ///
    /// The proleptic Gregorian calendar repeats every 400 years (146,097 days, a whole number of
    /// weeks), so a year's Mondays depend only on its place in the cycle, Y mod 400 =
    /// 100 × (CC mod 4) + YY for Y written CCYY; and within the cycle only on the weekday of the
    /// year's 1 January and whether it is a leap year. The pattern has one branch per such kind
    /// of year: the years of that kind (each class of centuries CC mod 4 with its YY), then the
    /// kind's Mondays, month by month.
    public static let pattern: String = makePattern()

    private struct YearKind: Hashable {
        var firstWeekday: Int
        var leap: Bool
    }

    private static func makePattern() -> String {
        var kinds: [YearKind] = []
        // For each kind, the years of the cycle it has: per class of centuries (CC mod 4), the YY.
        var years: [YearKind: [[Int]]] = [:]
        var sample: [YearKind: Int] = [:]
        for centuryClass in 0..<4 {
            for yy in 0..<100 {
                // 2000 is year 0 of a cycle: 2000 + r is at place r.
                let year = 2000 + 100 * centuryClass + yy
                let kind = YearKind(firstWeekday: weekday(year: year, month: 1, day: 1), leap: days(inMonth: 2, year: year) == 29)
                if years[kind] == nil {
                    kinds.append(kind)
                    years[kind] = Array(repeating: [], count: 4)
                    sample[kind] = year
                }
                years[kind]![centuryClass].append(yy)
            }
        }
        let branches = kinds.map { kind in
            var yearAlternatives: [String] = []
            for (centuryClass, yys) in years[kind]!.enumerated() where !yys.isEmpty {
                // Year 0000 is no year here: the year 00 of the centuries of class 0 leaves out century 00.
                if centuryClass == 0, yys.contains(0) {
                    yearAlternatives.append("(\(centuries(ofClass: 0, withoutZero: true)))00")
                    let rest = yys.filter { $0 != 0 }
                    if !rest.isEmpty { yearAlternatives.append("(\(centuries(ofClass: 0)))(\(twoDigits(rest)))") }
                } else {
                    yearAlternatives.append("(\(centuries(ofClass: centuryClass)))(\(twoDigits(yys)))")
                }
            }
            return "(\(yearAlternatives.joined(separator: "|")))-(\(mondays(of: sample[kind]!)))"
        }
        return "^(\(branches.joined(separator: "|")))$"
    }

    /// The centuries CC (00 to 99) with CC mod 4 = `centuryClass`, as alternatives of two digits:
    /// CC = 10a + b leaves 2a + b mod 4, so an even tens digit a takes the units b ≡ class, an odd
    /// one b ≡ class − 2 (mod 4).
    private static func centuries(ofClass centuryClass: Int, withoutZero: Bool = false) -> String {
        var alternatives: [String] = []
        for (tens, shift) in [("02468", 0), ("13579", 2)] {
            let units = (0...9).filter { ($0 + shift) % 4 == centuryClass }.map(String.init).joined()
            if withoutZero, shift == 0 {
                alternatives.append("0[\(units.filter { $0 != "0" })]")
                alternatives.append("[\(tens.dropFirst())][\(units)]")
            } else {
                alternatives.append("[\(tens)][\(units)]")
            }
        }
        return alternatives.joined(separator: "|")
    }

    /// Two-digit numbers as alternatives grouped by their tens digit (`0[17]|18|2[39]`).
    private static func twoDigits(_ numbers: [Int]) -> String {
        let byTens = Dictionary(grouping: numbers) { $0 / 10 }
        return byTens.keys.sorted().map { tens in
            let units = byTens[tens]!.map { String($0 % 10) }.sorted()
            return units.count == 1 ? "\(tens)\(units[0])" : "\(tens)[\(units.joined())]"
        }.joined(separator: "|")
    }

    /// The Mondays of `year` as alternatives `MM-(DD|DD|…)`, one per month.
    private static func mondays(of year: Int) -> String {
        (1...12).map { month in
            let first = (1...7).first { weekday(year: year, month: month, day: $0) == 1 }!
            let dates = stride(from: first, through: days(inMonth: month, year: year), by: 7).map { $0 < 10 ? "0\($0)" : "\($0)" }
            return (month < 10 ? "0\(month)" : "\(month)") + "-(\(dates.joined(separator: "|")))"
        }.joined(separator: "|")
    }
}
