import Foundation
import FrostboxCore

/// One location of a `/v1/forecast` answer, as Open-Meteo writes it.
struct OpenMeteoLocationPayload: Decodable {
    var latitude: Double
    var longitude: Double
    var elevation: Double?
    var utcOffsetSeconds: Int?
    var timezone: String?
    var locationID: Int?
    var hourlyUnits: [String: String]?
    var hourly: Hourly

    /// The hourly block: the time axis and every series of an asked-for variable, by the name
    /// Open-Meteo gives it (`temperature_2m`, or `temperature_2m_icon_d2` when several models
    /// were asked for); other series are skipped unread.
    struct Hourly: Decodable {
        var time: TimeAxis
        var series: [String: NumberSeries]

        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int? { nil }
            init(stringValue: String) { self.stringValue = stringValue }
            init?(intValue: Int) { nil }
        }

        init(time: TimeAxis, series: [String: NumberSeries]) {
            self.time = time
            self.series = series
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Key.self)
            time = try container.decode(TimeAxis.self, forKey: Key(stringValue: "time"))
            series = [:]
            for key in container.allKeys where OpenMeteoSettings.hourlyVariables.contains(where: { key.stringValue.hasPrefix($0) }) {
                series[key.stringValue] = try container.decode(NumberSeries.self, forKey: key)
            }
        }
    }

    enum CodingKeys: String, CodingKey {
        case latitude, longitude, elevation, timezone, hourly
        case utcOffsetSeconds = "utc_offset_seconds"
        case locationID = "location_id"
        case hourlyUnits = "hourly_units"
    }
}

/// The hourly time axis: epoch seconds with `timeformat=unixtime`, else local ISO 8601
/// (`YYYY-MM-DDTHH:MM`, shifted by one fixed `utc_offset_seconds` for the whole series).
enum TimeAxis: Decodable {
    case unix([Int64])
    case iso([String])

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        var seconds: [Int64] = []
        var texts: [String] = []
        seconds.reserveCapacity(container.count ?? 0)
        while !container.isAtEnd {
            if texts.isEmpty, let value = try? container.decode(Int64.self) {
                seconds.append(value)
            } else if seconds.isEmpty {
                texts.append(try container.decode(String.self))
            } else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "time mixes numbers and strings")
            }
        }
        self = texts.isEmpty ? .unix(seconds) : .iso(texts)
    }

    var count: Int {
        switch self {
        case .unix(let values): values.count
        case .iso(let values): values.count
        }
    }
}

/// A series of numbers with nulls for missing values. Decoded element by element through
/// the concrete `Double` overload: several times faster than the generic `[Double?]` path,
/// which dominated the cost of a 1,000-location answer.
struct NumberSeries: Decodable {
    var values: [Double?]

    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        var values: [Double?] = []
        values.reserveCapacity(container.count ?? 0)
        while !container.isAtEnd {
            if try container.decodeNil() {
                values.append(nil)
            } else {
                values.append(try container.decode(Double.self))
            }
        }
        self.values = values
    }

    var count: Int { values.count }

    subscript(index: Int) -> Double? { values[index] }
}

/// Open-Meteo's error body: `{"error": true, "reason": "…"}`.
struct OpenMeteoErrorPayload: Decodable {
    var error: Bool
    var reason: String?
}

/// Turns a `/v1/forecast` body into one forecast per box asked, or says why it cannot.
/// Never partial: any defect fails the whole answer.
enum OpenMeteoDecoder {
    /// Decodes `body` as the answer for `boxes` (in request order), fetched at `fetchedAt`.
    static func forecasts(
        from body: Data, for boxes: [GeoBox], fetchedAt: Int64, maximumGridDistance: Double, models: [String] = []
    ) throws(OpenMeteoDecodingError) -> [BoxForecast] {
        let ordered = try locations(from: body, for: boxes)
        var result: [BoxForecast] = []
        result.reserveCapacity(boxes.count)
        for (box, payload) in zip(boxes, ordered) {
            result.append(try forecast(payload, for: box, fetchedAt: fetchedAt, maximumGridDistance: maximumGridDistance, models: models))
        }
        return result
    }

    /// The locations of a body in request order, one for each of `boxes` (any other count
    /// fails the answer). Every API of the server answers in this shape.
    static func locations(from body: Data, for boxes: [GeoBox]) throws(OpenMeteoDecodingError) -> [OpenMeteoLocationPayload] {
        let payloads = try locations(from: body)
        guard payloads.count == boxes.count else {
            throw OpenMeteoDecodingError("asked for \(boxes.count) locations, the answer has \(payloads.count)")
        }
        return try inRequestOrder(payloads)
    }

    /// Fails unless a location's grid cell lies within `maximumGridDistance` degrees of the box
    /// asked: otherwise the answer is about another place (a misordered answer).
    static func requireNear(_ payload: OpenMeteoLocationPayload, _ box: GeoBox, maximumGridDistance: Double) throws(OpenMeteoDecodingError) {
        guard payload.latitude.isFinite, payload.longitude.isFinite, abs(payload.latitude - box.latitude) <= maximumGridDistance,
            GeoBox.longitudeDistance(payload.longitude, box.longitude) <= maximumGridDistance
        else {
            throw OpenMeteoDecodingError("answer for \(box) is about \(payload.latitude),\(payload.longitude): another place (misordered answer?)")
        }
    }

    /// The locations of a body, single-object or array shape.
    static func locations(from body: Data) throws(OpenMeteoDecodingError) -> [OpenMeteoLocationPayload] {
        guard let first = body.first(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) else {
            throw OpenMeteoDecodingError("empty body")
        }
        let decoder = JSONDecoder()
        do {
            if first == UInt8(ascii: "[") {
                return try decoder.decode([OpenMeteoLocationPayload].self, from: body)
            }
            if let error = try? decoder.decode(OpenMeteoErrorPayload.self, from: body), error.error {
                throw OpenMeteoDecodingError("error body in a 200 answer: \(error.reason ?? "no reason")")
            }
            return [try decoder.decode(OpenMeteoLocationPayload.self, from: body)]
        } catch let error as OpenMeteoDecodingError {
            throw error
        } catch {
            throw OpenMeteoDecodingError("body does not decode (truncated or not a forecast): \(Self.describe(error))")
        }
    }

    /// Orders locations by `location_id` when the answer carries it (absent means 0: Open-Meteo
    /// may omit it for the first location), else keeps array order.
    static func inRequestOrder(_ payloads: [OpenMeteoLocationPayload]) throws(OpenMeteoDecodingError) -> [OpenMeteoLocationPayload] {
        guard payloads.count > 1, payloads.contains(where: { $0.locationID != nil }) else { return payloads }
        var ordered = [OpenMeteoLocationPayload?](repeating: nil, count: payloads.count)
        for payload in payloads {
            let id = payload.locationID ?? 0
            guard ordered.indices.contains(id), ordered[id] == nil else {
                throw OpenMeteoDecodingError("location_id values are not 0..<\(payloads.count) each once")
            }
            ordered[id] = payload
        }
        return ordered.compactMap { $0 }
    }

    static func forecast(
        _ payload: OpenMeteoLocationPayload, for box: GeoBox, fetchedAt: Int64, maximumGridDistance: Double, models: [String] = []
    ) throws(OpenMeteoDecodingError) -> BoxForecast {
        guard payload.latitude.isFinite, payload.longitude.isFinite, abs(payload.latitude) <= 90, abs(payload.longitude) <= 180 else {
            throw OpenMeteoDecodingError("location \(box) has an invalid grid cell")
        }
        try requireNear(payload, box, maximumGridDistance: maximumGridDistance)
        let hourly = payload.hourly
        let count = hourly.time.count
        guard count > 0 else { throw OpenMeteoDecodingError("location \(box) has no hours") }
        let columns = try ModelColumns.all(in: hourly, models: models, box: box)
        guard columns.allSatisfy({ $0.count == count }) else {
            throw OpenMeteoDecodingError("location \(box) has series of different lengths")
        }
        let units = try Units(payload.hourlyUnits ?? [:])
        let (times, locals, timezone, offset) = try axis(payload, box: box)
        var hours: [ForecastHour] = []
        hours.reserveCapacity(count)
        for i in 0..<count {
            // The hour comes whole from the first model (in the order asked) that has its temperature.
            let source = columns.first { finite($0.temperature[i]) != nil } ?? columns[0]
            hours.append(
                ForecastHour(
                    time: times[i], local: locals[i],
                    temperatureC: units.celsius(source.temperature[i]),
                    dewPointC: units.dewPointCelsius(source.dewPoint[i]),
                    cloudCoverPercent: finite(source.cloudCover[i]),
                    windSpeedKmh: units.kmh(source.windSpeed[i])))
        }
        return BoxForecast(
            box: box, timezone: timezone, utcOffsetSeconds: offset, gridLatitude: payload.latitude,
            gridLongitude: payload.longitude, elevation: payload.elevation.flatMap { $0.isFinite ? $0 : nil },
            fetchedAt: fetchedAt, hours: hours)
    }

    /// A location's hours: UTC epoch seconds and wall-clock times, its time zone and offset.
    static func axis(
        _ payload: OpenMeteoLocationPayload, box: GeoBox
    ) throws(OpenMeteoDecodingError) -> (times: [Int64], locals: [LocalDateTime], timezone: String, offset: Int) {
        let offset = payload.utcOffsetSeconds ?? 0
        let times: [Int64]
        switch payload.hourly.time {
        case .unix(let seconds):
            times = seconds
        case .iso(let texts):
            var converted: [Int64] = []
            converted.reserveCapacity(texts.count)
            for text in texts {
                guard let local = LocalDateTime(text: text) else {
                    throw OpenMeteoDecodingError("location \(box) has a bad time \"\(text)\"")
                }
                // Open-Meteo shifts the whole ISO axis by one fixed offset, DST or not.
                converted.append(local.wallClockSeconds - Int64(offset))
            }
            times = converted
        }
        for i in 1..<max(1, times.count) where times[i] <= times[i - 1] {
            throw OpenMeteoDecodingError("location \(box) has times out of order")
        }
        let timezone = payload.timezone ?? "GMT"
        return (times, WallClock.localTimes(for: times, timezone: timezone, fallbackOffset: offset), timezone, offset)
    }

    /// One model's four series of an answer.
    struct ModelColumns {
        var temperature: NumberSeries
        var dewPoint: NumberSeries
        var cloudCover: NumberSeries
        var windSpeed: NumberSeries

        var count: Int { temperature.count }

        func hasLength(_ sameLength: Int) -> Bool {
            dewPoint.count == sameLength && cloudCover.count == sameLength && windSpeed.count == sameLength
        }

        /// The columns of each model asked for, in the order asked: suffixed by the model's
        /// name when several were asked for (Open-Meteo's form), plain for one or `best_match`.
        static func all(in hourly: OpenMeteoLocationPayload.Hourly, models: [String], box: GeoBox) throws(OpenMeteoDecodingError) -> [ModelColumns] {
            let suffixes = models.count > 1 ? models.map { "_" + $0 } : [""]
            var result: [ModelColumns] = []
            for suffix in suffixes {
                func column(_ variable: String) throws(OpenMeteoDecodingError) -> NumberSeries {
                    if let series = hourly.series[variable + suffix] { return series }
                    throw OpenMeteoDecodingError("location \(box) has no \(variable + suffix)")
                }
                let columns = ModelColumns(
                    temperature: try column("temperature_2m"), dewPoint: try column("dew_point_2m"), cloudCover: try column("cloud_cover"),
                    windSpeed: try column("wind_speed_10m"))
                guard columns.hasLength(columns.count) else {
                    throw OpenMeteoDecodingError("location \(box) has series of different lengths")
                }
                result.append(columns)
            }
            return result
        }
    }

    /// The units an answer states; values are converted to °C and km/h.
    struct Units {
        var temperatureFahrenheit = false
        var dewPointFahrenheit = false
        var windFactor = 1.0

        init(_ units: [String: String]) throws(OpenMeteoDecodingError) {
            // With several models each series states its unit under its suffixed name; all are alike.
            func unit(_ variable: String) -> String? {
                units[variable] ?? units.first { $0.key.hasPrefix(variable + "_") }?.value
            }
            temperatureFahrenheit = try Self.isFahrenheit(unit("temperature_2m"))
            dewPointFahrenheit = try Self.isFahrenheit(unit("dew_point_2m"))
            switch unit("wind_speed_10m") {
            case nil, "km/h": windFactor = 1
            case "m/s": windFactor = 3.6
            case "mp/h", "mph": windFactor = 1.609344
            case "kn": windFactor = 1.852
            case let other?: throw OpenMeteoDecodingError("unknown wind unit \(other)")
            }
            if let cloud = unit("cloud_cover"), cloud != "%" { throw OpenMeteoDecodingError("unknown cloud cover unit \(cloud)") }
        }

        static func isFahrenheit(_ unit: String?) throws(OpenMeteoDecodingError) -> Bool {
            switch unit {
            case nil, "°C": return false
            case "°F": return true
            case let other?: throw OpenMeteoDecodingError("unknown temperature unit \(other)")
            }
        }

        func celsius(_ value: Double?) -> Double? {
            finite(value).map { temperatureFahrenheit ? TemperatureUnit.fahrenheit.toCelsius($0) : $0 }
        }

        func dewPointCelsius(_ value: Double?) -> Double? {
            finite(value).map { dewPointFahrenheit ? TemperatureUnit.fahrenheit.toCelsius($0) : $0 }
        }

        func kmh(_ value: Double?) -> Double? { finite(value).map { $0 * windFactor } }
    }

    static func describe(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context): "data corrupted: \(context.debugDescription)"
        case DecodingError.keyNotFound(let key, _): "missing \(key.stringValue)"
        case DecodingError.typeMismatch(_, let context): "type mismatch at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        case DecodingError.valueNotFound(_, let context): "null at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        default: "\(error)"
        }
    }
}

@inline(__always) func finite(_ value: Double?) -> Double? {
    guard let value, value.isFinite else { return nil }
    return value
}

/// Why an answer could not be used.
struct OpenMeteoDecodingError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
