/// The forecast source of `frostbox serve --demo`: a built-in frost scenario, computed from
/// the box and the time alone (no network, no stored state). Every box gets three days of
/// clear, calm weather whose nights (local 18:00–08:00) fall to `minimumC` at 05:00, so a
/// subscription anywhere is alerted at the next notify run, tonight and tomorrow night with
/// that low at 05:00 whatever the time of day (a morning is frost-free from 08:00, so the
/// night that is ending is not alerted with its last, warmer hour). Local time is the whole-hour zone
/// of the box's longitude (`Etc/GMT±N`), close enough to solar time for a night to be a night.
public struct DemoForecastProvider: ForecastProvider {
    /// The lowest temperature of each night, °C (−4: a hard freeze under the default rule).
    public let minimumC: Double
    /// Hours in each forecast (72: the default three days).
    public let hours: Int

    public init(minimumC: Double = -4, hours: Int = 72) {
        self.minimumC = minimumC
        self.hours = max(1, hours)
    }

    /// Answers every box from the scenario, as fetched, with no request and no quota weight.
    public func forecasts(for boxes: [GeoBox], now: Int64) async -> ForecastBatch {
        var batch = ForecastBatch()
        for box in boxes {
            batch.forecasts[box] = SourcedForecast(forecast: forecast(for: box, now: now), source: .fetched)
        }
        return batch
    }

    /// The scenario's forecast for `box`, starting at local midnight of the day containing `now`.
    public func forecast(for box: GeoBox, now: Int64) -> BoxForecast {
        let offsetHours = min(max(Int((box.longitude / 15).rounded()), -12), 14)
        let offset = Int64(offsetHours) * 3600
        let localNow = now + offset
        let localMidnight = (localNow >= 0 ? localNow / 86_400 : (localNow - 86_399) / 86_400) * 86_400
        let start = localMidnight - offset
        let series = (0..<hours).map { index -> ForecastHour in
            let time = start + Int64(index) * 3600
            let local = LocalDateTime(wallClockSeconds: time + offset)
            return ForecastHour(
                time: time, local: local, temperatureC: temperature(atLocalHour: local.hour),
                dewPointC: temperature(atLocalHour: local.hour) - 2, cloudCoverPercent: 5, windSpeedKmh: 3)
        }
        // Etc/GMT zones count west as positive: UTC+2 is Etc/GMT-2.
        let zone = offsetHours == 0 ? "Etc/GMT" : "Etc/GMT\(offsetHours > 0 ? "-" : "+")\(abs(offsetHours))"
        return BoxForecast(
            box: box, timezone: zone, utcOffsetSeconds: Int(offset), gridLatitude: box.latitude, gridLongitude: box.longitude,
            elevation: nil, fetchedAt: now, hours: series)
    }

    /// +5 °C by day (08:00–17:00); at night a straight fall from 18:00 to `minimumC` at 05:00
    /// and a rise after it, so every night hour is at least frost risk.
    func temperature(atLocalHour hour: Int) -> Double {
        guard hour >= 18 || hour < 8 else { return 5 }
        let fromColdest = hour >= 18 ? Double(29 - hour) : Double(abs(hour - 5))
        return ((minimumC + fromColdest * 0.5) * 100).rounded() / 100
    }
}
