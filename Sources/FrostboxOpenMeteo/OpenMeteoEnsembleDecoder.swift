import Foundation
import FrostboxCore

/// Turns a `/v1/ensemble` body (issue #47) into one `EnsembleForecast` per box asked. The
/// answer has the forecast answer's shape (one location or an array, `location_id`, ISO or
/// unix times); its temperature series are the control (`temperature_2m`) and the perturbed
/// members (`temperature_2m_member01` …), each suffixed by the model's name when several were
/// asked for (`temperature_2m_member01_icon_seamless`), or, for an ensemble-mean model, the
/// mean (`temperature_2m`) and the spread (`temperature_2m_spread`). Never partial.
enum OpenMeteoEnsembleDecoder {
    /// How the models' values are read: every member, or mean and spread.
    enum Source: Sendable {
        case members
        case spread
    }

    /// Decodes `body` as the answer for `boxes` (in request order) from `models` (in the order
    /// asked; the first is the model an ensemble is named by, all members pooled).
    static func ensembles(
        from body: Data, for boxes: [GeoBox], models: [String], source: Source, maximumGridDistance: Double
    ) throws(OpenMeteoDecodingError) -> [EnsembleForecast] {
        var result: [EnsembleForecast] = []
        result.reserveCapacity(boxes.count)
        for (box, payload) in zip(boxes, try OpenMeteoDecoder.locations(from: body, for: boxes)) {
            result.append(try ensemble(payload, for: box, models: models, source: source, maximumGridDistance: maximumGridDistance))
        }
        return result
    }

    static func ensemble(
        _ payload: OpenMeteoLocationPayload, for box: GeoBox, models: [String], source: Source, maximumGridDistance: Double
    ) throws(OpenMeteoDecodingError) -> EnsembleForecast {
        try OpenMeteoDecoder.requireNear(payload, box, maximumGridDistance: maximumGridDistance)
        let (times, locals, _, _) = try OpenMeteoDecoder.axis(payload, box: box)
        guard !times.isEmpty else { throw OpenMeteoDecodingError("location \(box) has no hours") }
        let units = try OpenMeteoDecoder.Units(payload.hourlyUnits ?? [:])
        let hours = zip(times, locals).map { ForecastHour(time: $0, local: $1, temperatureC: nil) }
        let series = payload.hourly.series
        let suffixes = models.count > 1 ? models.map { "_" + $0 } : [""]
        func celsius(_ column: NumberSeries) throws(OpenMeteoDecodingError) -> [Double?] {
            guard column.count == times.count else { throw OpenMeteoDecodingError("location \(box) has series of different lengths") }
            return column.values.map(units.celsius)
        }
        switch source {
        case .members:
            var members: [[Double?]] = []
            for suffix in suffixes {
                let model = suffix.isEmpty ? nil : String(suffix.dropFirst())
                let names = series.keys.filter { Self.isMember($0, model: model) }.sorted()
                guard !names.isEmpty else { throw OpenMeteoDecodingError("location \(box) has no temperature_2m\(suffix) members") }
                for name in names {
                    // Present: `names` came from the series' keys.
                    if let column = series[name] { members.append(try celsius(column)) }
                }
            }
            return EnsembleForecast(box: box, hours: hours, values: .members(members), model: models.first ?? "")
        case .spread:
            let suffix = suffixes[0]
            guard let mean = series["temperature_2m" + suffix],
                let spread = series["temperature_2m_spread" + suffix] ?? series["temperature_2m" + suffix + "_spread"]
            else {
                throw OpenMeteoDecodingError("location \(box) has no temperature_2m\(suffix) mean and spread")
            }
            guard spread.count == times.count else { throw OpenMeteoDecodingError("location \(box) has series of different lengths") }
            // A spread is a difference: in °F it converts by the factor alone.
            let spreadC = spread.values.map { finite($0).map { units.temperatureFahrenheit ? $0 * 5 / 9 : $0 } }
            return EnsembleForecast(box: box, hours: hours, values: .spread(mean: try celsius(mean), spread: spreadC), model: models.first ?? "")
        }
    }

    /// Whether a series name is a temperature member (the control or `memberNN`) of `model`
    /// (nil: the only model, unsuffixed). Both orders Open-Meteo has used are taken:
    /// `temperature_2m_member01_<model>` and `temperature_2m_<model>_member01`.
    static func isMember(_ name: String, model: String?) -> Bool {
        guard name.hasPrefix("temperature_2m") else { return false }
        var rest = Substring(name.dropFirst("temperature_2m".count))
        if let model {
            let tail = "_" + model
            if rest.hasSuffix(tail) {
                rest = rest.dropLast(tail.count)
            } else if rest.hasPrefix(tail) {
                rest = rest.dropFirst(tail.count)
            } else {
                return false
            }
        }
        if rest.isEmpty { return true }
        guard rest.hasPrefix("_member") else { return false }
        let digits = rest.dropFirst("_member".count)
        return !digits.isEmpty && digits.allSatisfy(\.isNumber)
    }
}
