import FrostboxCore

/// Building blocks of the planning and notifier tests (one copy for both test targets): a
/// place at Helsinki (UTC+3 in May), a forecast whose temperatures a closure decides, tokens
/// and subscribed places.
public enum Fixtures {
    public static let offset: Int64 = 3 * 3600
    public static let box = GeoBox(Coordinate(uncheckedLatitude: 60.17, longitude: 24.94))
    public static let otherBox = GeoBox(Coordinate(uncheckedLatitude: 61.5, longitude: 23.75))
    public static let day = LocalDate(year: 2026, month: 5, day: 12)

    /// UTC epoch seconds of a wall-clock time at the place.
    public static func instant(_ date: LocalDate, _ hour: Int) -> Int64 {
        LocalDateTime(date: date, hour: hour).wallClockSeconds - offset
    }

    /// 14:00 local on 12 May.
    public static let afternoon = instant(day, 14)

    /// 96 hourly values from local midnight of `day`; `temperature(date, hour)` decides each.
    public static func forecast(box: GeoBox = box, cloud: Double = 10, wind: Double = 5, _ temperature: (LocalDate, Int) -> Double?) -> BoxForecast {
        var hours: [ForecastHour] = []
        let start = instant(day, 0)
        for index in 0..<96 {
            let time = start + Int64(index) * 3600
            let local = LocalDateTime(wallClockSeconds: time + offset)
            hours.append(
                ForecastHour(time: time, local: local, temperatureC: temperature(local.date, local.hour), cloudCoverPercent: cloud, windSpeedKmh: wind))
        }
        return BoxForecast(
            box: box, timezone: "Europe/Helsinki", utcOffsetSeconds: Int(offset), gridLatitude: box.latitude, gridLongitude: box.longitude, elevation: 10,
            fetchedAt: afternoon, hours: hours)
    }

    /// Mild (8 °C) except the night of `night`, which drops to `low` at 05:00 (and low + 1 around it).
    public static func frost(on night: LocalDate = day, low: Double, box: GeoBox = box) -> BoxForecast {
        forecast(box: box) { date, hour in
            let isNight = (date == night && hour >= 18) || (date == night.next && hour < 10)
            guard isNight else { return 8 }
            if date == night.next && hour == 5 { return low }
            if date == night.next && (hour == 4 || hour == 6) { return low + 1 }
            return 6
        }
    }

    public static func token(_ n: Int) -> DeviceToken {
        let hex = String(n, radix: 16)
        return DeviceToken(trusted: String(repeating: "0", count: 32 - hex.count) + hex)
    }

    public static func place(
        _ id: Int64, _ token: DeviceToken, _ name: String, unit: TemperatureUnit = .celsius, settings: AlertSettings = .default
    ) -> SubscribedPlace {
        SubscribedPlace(subscriptionID: id, token: token, name: name, unit: unit, settings: settings)
    }
}
