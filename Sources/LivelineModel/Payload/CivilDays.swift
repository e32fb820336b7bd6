/// Days of the proleptic Gregorian calendar counted by plain arithmetic, the same for every year
/// 0001–9999 (Foundation's Gregorian calendar turns Julian before 1582). The algorithm is Howard
/// Hinnant's `days_from_civil` (http://howardhinnant.github.io/date_algorithms.html).
public enum CivilDays {
    /// Days from 1970-01-01 to `year`-`month`-`day`.
    public static func since1970(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        return era * 146_097 + yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear - 719_468
    }

    /// ISO weekday, 1 = Monday … 7 = Sunday (1970-01-01 was a Thursday).
    public static func isoWeekday(year: Int, month: Int, day: Int) -> Int {
        let days = since1970(year: year, month: month, day: day)
        return ((days % 7 + 7) % 7 + 3) % 7 + 1
    }
}
