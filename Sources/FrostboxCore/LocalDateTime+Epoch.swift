extension LocalDate {
    /// Days since 1970-01-01 in the proleptic Gregorian calendar (Howard Hinnant's
    /// `days_from_civil`).
    public var daysSinceEpoch: Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let m = Int64(month)
        let dayOfYear = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + Int64(day) - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// The date `days` days after 1970-01-01 (`civil_from_days`).
    public init(daysSinceEpoch days: Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        self.init(year: Int(year), month: Int(month), day: Int(day))
    }

    /// Compact integer form `YYYYMMDD`, e.g. for identifiers.
    public var compactNumber: Int { year * 10_000 + month * 100 + day }

    /// The date of a `YYYYMMDD` number (`compactNumber`); nil when it names no date.
    public init?(compactNumber: Int) {
        let year = compactNumber / 10_000, month = compactNumber / 100 % 100, day = compactNumber % 100
        guard (1...9999).contains(year), (1...12).contains(month), (1...31).contains(day) else { return nil }
        self.init(year: year, month: month, day: day)
    }
}

extension LocalDateTime {
    /// Seconds since 1970-01-01T00:00 on the same wall clock (a local "epoch", not a UTC instant).
    public var wallClockSeconds: Int64 {
        date.daysSinceEpoch * 86_400 + Int64(hour) * 3600 + Int64(minute) * 60
    }

    /// The wall-clock moment `seconds` after 1970-01-01T00:00 (seconds within the minute dropped).
    public init(wallClockSeconds seconds: Int64) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let rest = seconds - days * 86_400
        self.init(date: LocalDate(daysSinceEpoch: days), hour: Int(rest / 3600), minute: Int(rest % 3600 / 60))
    }
}
