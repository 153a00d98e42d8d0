import Foundation
import FrostboxCore

/// Writes forecast JSON the way Open-Meteo lays it out, straight into bytes (fast enough to
/// serve 1,000 locations × 16 days per request).
struct MockResponseWriter {
    var bytes: [UInt8] = []

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    mutating func raw(_ text: String) { bytes.append(contentsOf: text.utf8) }

    mutating func integer(_ value: Int64) { raw(String(value)) }

    /// One decimal, as Open-Meteo prints temperatures and wind; `null` for NaN.
    mutating func tenths(_ value: Double) {
        guard value.isFinite else { return raw("null") }
        let scaled = Int64((value * 10).rounded())
        if scaled < 0 { raw("-") }
        let magnitude = abs(scaled)
        integer(magnitude / 10)
        raw(".")
        integer(magnitude % 10)
    }

    mutating func location(request: ForecastRequest, box: GeoBox, locationID: Int?, timezone: String, spot: FrostSpot?, spread: Double = 2, calm: Bool = false)
    {
        let zone = TimeZone(identifier: timezone) ?? TimeZone(secondsFromGMT: 0)!
        let now = request.now
        // One offset for the whole answer, taken now: Open-Meteo's local ISO times keep it across DST.
        let offset = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(now))))
        let midnight = ((now + offset) / 86_400 - ((now + offset) < 0 ? 1 : 0)) * 86_400
        let start = midnight - offset
        let firstDate = LocalDateTime(wallClockSeconds: midnight).date
        let grid = MockWeather.gridCell(box)
        raw("{\"latitude\":")
        raw(String(grid.latitude))
        raw(",\"longitude\":")
        raw(String(grid.longitude))
        raw(",\"generationtime_ms\":0.5,\"utc_offset_seconds\":")
        integer(offset)
        raw(",\"timezone\":\"\(timezone)\",\"timezone_abbreviation\":\"")
        raw(zone.abbreviation(for: Date(timeIntervalSince1970: TimeInterval(now))) ?? "GMT")
        raw("\",\"elevation\":")
        raw(String(MockWeather.elevation(box)))
        if let locationID {
            raw(",\"location_id\":")
            integer(Int64(locationID))
        }
        raw(",\"hourly_units\":{\"time\":\"\(request.unixTime ? "unixtime" : "iso8601")\"")
        for suffix in request.modelSuffixes {
            for variable in request.ensemble ? ensembleColumns(request, suffix: suffix) : request.variables {
                let unit: String =
                    switch variable {
                    case "dew_point_2m": request.fahrenheit ? "°F" : "°C"
                    case _ where variable.hasPrefix("temperature_2m"): request.fahrenheit ? "°F" : "°C"
                    case "cloud_cover": "%"
                    default: request.windUnit.label
                    }
                raw(",\"\(variable)\(suffix)\":\"\(unit)\"")
            }
        }
        raw("},\"hourly\":{\"time\":[")
        // The zone's true offset per hour; looked up once unless it changes within the series.
        let end = start + Int64(request.hours) * 3_600
        let startOffset = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(start))))
        let changes =
            zone.nextDaylightSavingTimeTransition(after: Date(timeIntervalSince1970: TimeInterval(start)))
            .map { Int64($0.timeIntervalSince1970) < end } ?? false
        var hours: [MockWeather.Hour] = []
        hours.reserveCapacity(request.hours)
        for i in 0..<request.hours {
            let time = start + Int64(i) * 3_600
            if i > 0 { raw(",") }
            if request.unixTime {
                integer(time)
            } else {
                raw("\"")
                raw(LocalDateTime(wallClockSeconds: time + offset).description)
                raw("\"")
            }
            // The weather follows the true wall clock, DST included.
            let trueOffset = changes ? Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(time)))) : startOffset
            let local = LocalDateTime(wallClockSeconds: time + trueOffset)
            var hour = MockWeather.hour(box: box, time: time, local: local)
            if let spot {
                hour = MockWeather.forced(hour, spot: spot, local: local, nightIndex: MockWeather.nightIndex(of: local, firstDate: firstDate))
            }
            if calm {
                hour.cloudCover = 5
                hour.windSpeed = 3
            }
            hours.append(hour)
        }
        raw("]")
        if request.ensemble { return ensembleSeries(hours, request: request, spread: spread) }
        // Several models: the k-th model's temperatures lie k × 0.3 °C above the first's (so a
        // test can tell them apart), and a model past its horizon (ICON-D2's 48 h) has nulls.
        for (k, suffix) in request.modelSuffixes.enumerated() {
            let horizon = request.models.count > 1 ? ForecastRequest.horizonHours(ofModel: request.models[k]) : nil
            let shift = Double(k) * 0.3
            for variable in request.variables {
                raw(",\"\(variable)\(suffix)\":[")
                for (i, original) in hours.enumerated() {
                    if i > 0 { raw(",") }
                    if let horizon, i >= horizon {
                        raw("null")
                        continue
                    }
                    var hour = original
                    hour.temperature += shift
                    series(variable, hour, request: request)
                }
                raw("]")
            }
        }
        raw("}}")
    }

    /// One value of `variable` in the request's units.
    mutating func series(_ variable: String, _ hour: MockWeather.Hour, request: ForecastRequest) {
        switch variable {
        case "temperature_2m": tenths(request.fahrenheit ? hour.temperature * 9 / 5 + 32 : hour.temperature)
        case "dew_point_2m": tenths(request.fahrenheit ? hour.dewPoint * 9 / 5 + 32 : hour.dewPoint)
        case "cloud_cover": integer(Int64(hour.cloudCover.rounded()))
        default: tenths(request.windUnit.convert(hour.windSpeed))
        }
    }

    /// The temperature columns of an ensemble answer for one model: the control and
    /// `_memberNN` (suffixed by the model when several were asked), or a mean model's mean and spread.
    func ensembleColumns(_ request: ForecastRequest, suffix: String) -> [String] {
        let model = suffix.isEmpty ? request.models.first ?? MockEnsembles.defaultModel : String(suffix.dropFirst())
        let count = MockEnsembles.members(of: model)
        if model.hasSuffix("_mean") { return ["temperature_2m", "temperature_2m_spread"] }
        return ["temperature_2m"] + (1..<max(1, count)).map { "temperature_2m_member" + ($0 < 10 ? "0" : "") + String($0) }
    }

    /// An ensemble answer's series: member `i` of each model lies `MockEnsembles.offset` from
    /// the deterministic temperature; a mean model gives the deterministic temperature and the
    /// members' standard deviation.
    mutating func ensembleSeries(_ hours: [MockWeather.Hour], request: ForecastRequest, spread: Double) {
        for suffix in request.modelSuffixes {
            let model = suffix.isEmpty ? request.models.first ?? MockEnsembles.defaultModel : String(suffix.dropFirst())
            let count = MockEnsembles.members(of: model)
            let columns = ensembleColumns(request, suffix: suffix)
            for (index, column) in columns.enumerated() {
                raw(",\"\(column)\(suffix)\":[")
                for (i, hour) in hours.enumerated() {
                    if i > 0 { raw(",") }
                    let celsius: Double
                    if model.hasSuffix("_mean") {
                        celsius = index == 0 ? hour.temperature : MockEnsembles.standardDeviation(of: 51, spread: spread)
                        // A spread is a difference: in °F it converts by the factor alone.
                        if index == 1 {
                            tenths(request.fahrenheit ? celsius * 9 / 5 : celsius)
                            continue
                        }
                    } else {
                        celsius = hour.temperature + MockEnsembles.offset(member: index, of: count, spread: spread)
                    }
                    tenths(request.fahrenheit ? celsius * 9 / 5 + 32 : celsius)
                }
                raw("]")
            }
        }
        raw("}}")
    }
}
