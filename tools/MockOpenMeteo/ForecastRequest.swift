import Foundation
import FrostboxCore

/// A parsed `/v1/forecast` request.
struct ForecastRequest: Sendable {
    var boxes: [GeoBox]
    var coordinates: [(latitude: Double, longitude: Double)]
    var variables: [String]
    var timezones: [String]
    var forecastDays: Int
    var unixTime: Bool
    var fahrenheit: Bool
    var windUnit: WindUnit
    /// The models asked for (`models=`); empty: `best_match`.
    var models: [String] = []
    /// The mock's clock when the request was accepted.
    var now: Int64 = 0
    /// Asked of `/v1/ensemble`: every member (or a mean model's mean and spread) of `temperature_2m`.
    var ensemble = false

    enum WindUnit: String {
        case kmh, ms, mph, kn

        var label: String {
            switch self {
            case .kmh: "km/h"
            case .ms: "m/s"
            case .mph: "mp/h"
            case .kn: "kn"
            }
        }

        func convert(_ kmh: Double) -> Double {
            switch self {
            case .kmh: kmh
            case .ms: kmh / 3.6
            case .mph: kmh / 1.609344
            case .kn: kmh / 1.852
            }
        }
    }

    static let known = ["temperature_2m", "dew_point_2m", "cloud_cover", "wind_speed_10m"]

    var hours: Int { forecastDays * 24 }

    /// Open-Meteo's charge: per location max(1, variables / 10 × max(1, days / 14)), each
    /// model asked for counting the variables again.
    var weight: Double {
        guard ensemble else {
            return Double(boxes.count) * Self.weightPerLocation(variables: variables.count * max(1, models.count), days: forecastDays)
        }
        let members = (models.isEmpty ? [MockEnsembles.defaultModel] : models).map(MockEnsembles.members(of:)).reduce(0, +)
        return Double(boxes.count) * Self.weightPerLocation(variables: variables.count * members, days: forecastDays)
    }

    /// Open-Meteo's charge per location: max(1, variables / 10 × max(1, days / 14)).
    static func weightPerLocation(variables: Int, days: Int) -> Double {
        max(1, Double(variables) / 10 * max(1, Double(days) / 14))
    }

    /// The suffix of each model's series: none for `best_match` or one model, `_<model>` for
    /// each of several (as Open-Meteo names them).
    var modelSuffixes: [String] { models.count > 1 ? models.map { "_" + $0 } : [""] }

    /// How many hours a model forecasts (ICON-D2's 48); nil: the whole request.
    static func horizonHours(ofModel model: String) -> Int? { model == "icon_d2" ? 48 : nil }

    struct Invalid: Error {
        let reason: String
    }

    static func parse(_ p: [String: String], scenario: MockScenario, ensemble: Bool = false) -> Result<ForecastRequest, Invalid> {
        func list(_ key: String) -> [String] { Self.list(p, key) }
        let coordinates: [(latitude: Double, longitude: Double)]
        let boxes: [GeoBox]
        switch locations(p) {
        case .failure(let invalid): return .failure(invalid)
        case .success(let parsed): (coordinates, boxes) = parsed
        }
        let variables = p["hourly"].map { _ in list("hourly").filter { !$0.isEmpty } } ?? []
        if let unknown = variables.first(where: { !(ensemble ? ["temperature_2m", "temperature_2m_spread"] : known).contains($0) }) {
            return .failure(Invalid(reason: "Cannot initialize ForecastVariable from invalid String value \(unknown)."))
        }
        let days = p["forecast_days"].map { Int($0) } ?? 7
        guard let days, (0...16).contains(days) else {
            return .failure(Invalid(reason: "Forecast days is invalid. Allowed range 0 to 16."))
        }
        let timezones = p["timezone"].map { _ in list("timezone") } ?? ["GMT"]
        guard timezones.count == 1 || timezones.count == boxes.count else {
            return .failure(Invalid(reason: "Parameter 'timezone' must have one value or as many as locations"))
        }
        for zone in timezones where zone != "auto" && TimeZone(identifier: zone) == nil {
            return .failure(Invalid(reason: "Invalid timezone"))
        }
        let timeformat = p["timeformat"] ?? "iso8601"
        guard timeformat == "iso8601" || timeformat == "unixtime" else {
            return .failure(Invalid(reason: "Invalid timeformat"))
        }
        let temperatureUnit = p["temperature_unit"] ?? "celsius"
        guard temperatureUnit == "celsius" || temperatureUnit == "fahrenheit" else {
            return .failure(Invalid(reason: "Invalid temperature_unit"))
        }
        guard let wind = WindUnit(rawValue: p["wind_speed_unit"] ?? p["windspeed_unit"] ?? "kmh") else {
            return .failure(Invalid(reason: "Invalid wind_speed_unit"))
        }
        let models = p["models"].map { _ in list("models").filter { !$0.isEmpty && $0 != "best_match" } } ?? []
        return .success(
            ForecastRequest(
                boxes: boxes, coordinates: coordinates, variables: variables, timezones: timezones, forecastDays: days,
                unixTime: timeformat == "unixtime", fahrenheit: temperatureUnit == "fahrenheit", windUnit: wind, models: models,
                ensemble: ensemble))
    }

    /// The comma-separated `latitude` / `longitude` lists (up to 1,000), as every endpoint reads them.
    static func locations(_ p: [String: String]) -> Result<(coordinates: [(latitude: Double, longitude: Double)], boxes: [GeoBox]), Invalid> {
        func list(_ key: String) -> [String] { Self.list(p, key) }
        guard p["latitude"] != nil, p["longitude"] != nil else {
            return .failure(Invalid(reason: "Parameter 'latitude' and 'longitude' are required"))
        }
        let latitudes = list("latitude")
        let longitudes = list("longitude")
        guard latitudes.count == longitudes.count else {
            return .failure(Invalid(reason: "Parameter 'latitude' and 'longitude' must have the same number of elements"))
        }
        guard latitudes.count <= 1_000 else {
            return .failure(Invalid(reason: "Only up to 1000 locations can be requested at once"))
        }
        var coordinates: [(latitude: Double, longitude: Double)] = []
        var boxes: [GeoBox] = []
        for (latText, lonText) in zip(latitudes, longitudes) {
            guard let lat = Double(latText), lat.isFinite else {
                return .failure(Invalid(reason: "Value of type 'Float' required for key 'latitude'."))
            }
            guard let lon = Double(lonText), lon.isFinite else {
                return .failure(Invalid(reason: "Value of type 'Float' required for key 'longitude'."))
            }
            guard (-90...90).contains(lat) else {
                return .failure(Invalid(reason: "Latitude must be in range of -90 to 90°. Given: \(lat)."))
            }
            guard (-180...180).contains(lon) else {
                return .failure(Invalid(reason: "Longitude must be in range of -180 to 180°. Given: \(lon)."))
            }
            coordinates.append((lat, lon))
            boxes.append(Coordinate(uncheckedLatitude: lat, longitude: lon).box)
        }
        return .success((coordinates, boxes))
    }

    /// A comma-separated parameter's values, trimmed, empty ones kept.
    static func list(_ p: [String: String], _ key: String) -> [String] {
        (p[key] ?? "").split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// The IANA zone of location `index`.
    func timezone(for index: Int, box: GeoBox, scenario: MockScenario) -> String {
        let zone = timezones.count == 1 ? timezones[0] : timezones[index]
        return zone == "auto" ? MockWeather.autoZone(for: box, scenario: scenario) : zone
    }
}
