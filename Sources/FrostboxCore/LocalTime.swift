/// A calendar date on a place's wall clock (no time zone attached).
public struct LocalDate: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public var year: Int
    public var month: Int
    public var day: Int

    public init(year: Int, month: Int, day: Int) {
        self.year = year
        self.month = month
        self.day = day
    }

    /// `YYYY-MM-DD`, the year of four digits at least (`0104-01-11`, as `init(text:)` reads it).
    public var description: String {
        let digits = String(abs(year))
        let yearText = (year < 0 ? "-" : "") + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        return "\(yearText)-\(month < 10 ? "0" : "")\(month)-\(day < 10 ? "0" : "")\(day)"
    }

    /// Parses `YYYY-MM-DD`.
    public init?(text: some StringProtocol) {
        let parts = text.split(separator: "-")
        guard parts.count == 3, let y = Int(parts[0]), let m = Int(parts[1]), let d = Int(parts[2]),
            (1...12).contains(m), (1...31).contains(d)
        else { return nil }
        self.init(year: y, month: m, day: d)
    }

    /// The day before (proleptic Gregorian calendar).
    public var previous: LocalDate {
        if day > 1 { return LocalDate(year: year, month: month, day: day - 1) }
        let m = month == 1 ? 12 : month - 1
        let y = month == 1 ? year - 1 : year
        return LocalDate(year: y, month: m, day: Self.daysIn(month: m, year: y))
    }

    /// The day after.
    public var next: LocalDate {
        if day < Self.daysIn(month: month, year: year) { return LocalDate(year: year, month: month, day: day + 1) }
        return month == 12 ? LocalDate(year: year + 1, month: 1, day: 1) : LocalDate(year: year, month: month + 1, day: 1)
    }

    static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    public static func < (a: LocalDate, b: LocalDate) -> Bool {
        (a.year, a.month, a.day) < (b.year, b.month, b.day)
    }
}

/// A wall-clock moment at a place: date, hour and minute (as Open-Meteo reports with `timezone=auto`).
public struct LocalDateTime: Sendable, Hashable, Comparable, Codable, CustomStringConvertible {
    public var date: LocalDate
    public var hour: Int
    public var minute: Int

    public init(date: LocalDate, hour: Int, minute: Int = 0) {
        self.date = date
        self.hour = hour
        self.minute = minute
    }

    /// Parses `YYYY-MM-DDTHH:MM`.
    public init?(text: some StringProtocol) {
        let parts = text.split(separator: "T")
        guard parts.count == 2, let date = LocalDate(text: parts[0]) else { return nil }
        let clock = parts[1].split(separator: ":")
        guard clock.count >= 2, let h = Int(clock[0]), let m = Int(clock[1]), (0...23).contains(h), (0...59).contains(m) else {
            return nil
        }
        self.init(date: date, hour: h, minute: m)
    }

    /// `YYYY-MM-DDTHH:MM`.
    public var description: String {
        "\(date)T\(hour < 10 ? "0" : "")\(hour):\(minute < 10 ? "0" : "")\(minute)"
    }

    /// `HH:MM`.
    public var clockText: String {
        "\(hour < 10 ? "0" : "")\(hour):\(minute < 10 ? "0" : "")\(minute)"
    }

    public static func < (a: LocalDateTime, b: LocalDateTime) -> Bool {
        (a.date, a.hour, a.minute) < (b.date, b.hour, b.minute)
    }
}
