/// An HTTP date (RFC 9110 §5.6.7) as seconds since 1970: the IMF-fixdate every server sends
/// (`Sun, 06 Nov 1994 08:49:37 GMT`) and the two obsolete forms a recipient must still read
/// (RFC 850's `Sunday, 06-Nov-94 08:49:37 GMT`, asctime's `Sun Nov  6 08:49:37 1994`).
enum HTTPDate {
    private static let months = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"]

    /// The date's seconds since 1970, or nil when `text` is none of the three forms.
    static func seconds(_ text: String) -> Int64? {
        let parts = text.lowercased().split { $0 == " " || $0 == "," || $0 == "-" }
        var day: Int?
        var month: Int?
        var year: Int?
        var time: Substring
        if parts.count == 6, parts[5] == "gmt" {
            // IMF-fixdate or RFC 850: weekday, day, month, year, time, GMT.
            (day, month, time) = (Int(parts[1]), months.firstIndex(of: String(parts[2])), parts[4])
            // RFC 850's two-digit year, read as 1970–2069.
            year = Int(parts[3]).map { $0 >= 100 ? $0 : ($0 < 70 ? 2000 + $0 : 1900 + $0) }
        } else if parts.count == 5 {
            // asctime: weekday, month, day, time, year.
            (month, day, time, year) = (months.firstIndex(of: String(parts[1])), Int(parts[2]), parts[3], Int(parts[4]))
        } else {
            return nil
        }
        let clock = time.split(separator: ":", omittingEmptySubsequences: false).map { Int($0) }
        guard let day, let month, let year, (1...31).contains(day), (1970...9999).contains(year), clock.count == 3,
            let hour = clock[0], let minute = clock[1], let second = clock[2], (0...23).contains(hour), (0...59).contains(minute),
            (0...60).contains(second)
        else { return nil }
        return days(year: year, month: month + 1, day: day) * 86_400 + Int64(hour * 3_600 + minute * 60 + second)
    }

    /// Days from 1970-01-01 to a date of the proleptic Gregorian calendar (March-based years,
    /// so that the leap day ends a year).
    private static func days(year: Int, month: Int, day: Int) -> Int64 {
        let shifted = month <= 2 ? year - 1 : year
        let era = shifted / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * ((month + 9) % 12) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return Int64(era * 146_097 + dayOfEra - 719_468)
    }
}
