import Foundation
import FrostboxCore

/// Deterministic synthetic weather: the same box and hour always give the same values.
/// Warm near the equator, cold toward the poles in their winter, coldest about 05:00
/// local and warmest about 15:00, with per-box, per-day noise; frost spots override nights.
enum MockWeather {
    struct Hour {
        var temperature: Double
        var dewPoint: Double
        var cloudCover: Double
        var windSpeed: Double
    }

    /// The values of one hour at `box`, `time` (UTC), with the place's wall clock `local`.
    static func hour(box: GeoBox, time: Int64, local: LocalDateTime) -> Hour {
        let dayOfYear = Double(local.date.daysSinceEpoch % 365 + 365).truncatingRemainder(dividingBy: 365)
        let latitude = box.latitude
        // +1 in the hemisphere's summer (late July north, late January south).
        let season = cos(2 * Double.pi * (dayOfYear - 205) / 365) * (latitude >= 0 ? 1 : -1)
        let mean = 27 - 0.42 * abs(latitude) + season * 14 * min(1, abs(latitude) / 50)
        let localHour = Double(local.hour) + Double(local.minute) / 60
        let diurnal = -5 * cos(2 * Double.pi * (localHour - 5) / 24)
        let dayNoise = unit(box.key, local.date.daysSinceEpoch, 1) * 4 - 2
        let temperature = round1(mean + diurnal + dayNoise)
        let sixHour = time / 21_600
        let cloudCover = (unit(box.key, sixHour, 2) * 100).rounded()
        let windSpeed = round1(2 + unit(box.key, sixHour, 3) * 22)
        let dewPoint = round1(temperature - 1 - unit(box.key, local.date.daysSinceEpoch, 4) * 6)
        return Hour(temperature: temperature, dewPoint: dewPoint, cloudCover: cloudCover, windSpeed: windSpeed)
    }

    /// `hour` forced cold by a frost spot during its nights (local 18:00–10:00).
    static func forced(_ hour: Hour, spot: FrostSpot, local: LocalDateTime, nightIndex: Int?) -> Hour {
        guard let nightIndex, spot.nights.map({ $0.contains(nightIndex) }) ?? true else { return hour }
        let cold = nightCurve(minimumC: spot.minimumC, local: local)
        return Hour(
            temperature: min(hour.temperature, cold), dewPoint: min(hour.dewPoint, cold - 1),
            cloudCover: spot.cloudCover, windSpeed: spot.windSpeed)
    }

    /// A forced night's temperature at a local hour: falling toward `minimumC` at 05:00, 0.6 °C
    /// an hour away from it.
    static func nightCurve(minimumC: Double, local: LocalDateTime) -> Double {
        let fromDawn = local.hour >= 18 ? Double(29 - local.hour) : Double(abs(local.hour - 5))
        return round1(minimumC + 0.6 * fromDawn)
    }

    /// The night (counted from the answer's first evening) a local hour belongs to, or nil by day.
    static func nightIndex(of local: LocalDateTime, firstDate: LocalDate) -> Int? {
        nightDate(of: local).map { Int($0.daysSinceEpoch - firstDate.daysSinceEpoch) }
    }

    /// The date of the evening (local 18:00–10:00 the next morning) a local hour belongs to, or nil by day.
    static func nightDate(of local: LocalDateTime) -> LocalDate? {
        if local.hour >= 18 { return local.date }
        if local.hour < 10 { return local.date.previous }
        return nil
    }

    /// Grid cell an answer reports for a box: the nearest 0.1°, as a model grid would.
    static func gridCell(_ box: GeoBox) -> (latitude: Double, longitude: Double) {
        ((box.latitude * 10).rounded() / 10, (box.longitude * 10).rounded() / 10)
    }

    /// Elevation of a box, metres.
    static func elevation(_ box: GeoBox) -> Double {
        (unit(box.key, 0, 5) * 400).rounded()
    }

    // MARK: Time zones

    /// Regions `timezone=auto` knows without a scenario.
    static let regions: [(latitude: ClosedRange<Double>, longitude: ClosedRange<Double>, zone: String)] = [
        (59.5...70.5, 19.5...31.6, "Europe/Helsinki"),
        (55.0...69.5, 10.5...24.2, "Europe/Stockholm"),
        (49.5...61.0, -11.0...1.8, "Europe/London"),
        (43.0...55.0, 5.5...15.0, "Europe/Berlin"),
        (24.0...48.0, -85.0...(-66.0), "America/New_York"),
        (30.0...46.0, 129.0...146.0, "Asia/Tokyo"),
        (-44.0...(-28.0), 141.0...154.0, "Australia/Sydney"),
    ]

    /// The IANA zone `timezone=auto` resolves to.
    static func autoZone(for box: GeoBox, scenario: MockScenario) -> String {
        if let spot = scenario.timezones.first(where: { $0.box == box }) { return spot.timezone }
        if let region = regions.first(where: { $0.latitude.contains(box.latitude) && $0.longitude.contains(box.longitude) }) {
            return region.zone
        }
        let hours = Int((box.longitude / 15).rounded())
        if hours == 0 { return "GMT" }
        // POSIX sign: Etc/GMT-2 is two hours east of Greenwich.
        return "Etc/GMT\(hours > 0 ? "-" : "+")\(abs(hours))"
    }

    // MARK: Hashing

    /// A uniform number in [0, 1) from three integers (SplitMix64).
    static func unit(_ a: Int64, _ b: Int64, _ c: Int64) -> Double {
        var x = UInt64(bitPattern: a) &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(bitPattern: b) &* 0xBF58_476D_1CE4_E5B9 ^ UInt64(bitPattern: c) &* 0x94D0_49BB_1331_11EB
        x = (x ^ (x >> 30)) &* 0xBF58_476D_1CE4_E5B9
        x = (x ^ (x >> 27)) &* 0x94D0_49BB_1331_11EB
        x ^= x >> 31
        return Double(x >> 11) / Double(UInt64(1) << 53)
    }

    static func round1(_ value: Double) -> Double { (value * 10).rounded() / 10 }
}
