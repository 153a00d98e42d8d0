import Foundation
import FrostboxCore

/// Turns a `/v1/archive` body (issue #48) into one `ObservedHours` per box asked. The answer
/// has the forecast answer's shape (one location or an array, `location_id`, ISO or unix
/// times) with one series, `temperature_2m`, suffixed by the model's name when several were
/// asked for (`temperature_2m_ecmwf_ifs`). Hours the archive has not analysed yet are null and
/// stay nil. Never partial: any defect fails the whole answer.
enum OpenMeteoArchiveDecoder {
    /// Decodes `body` as the answer for `boxes` (in request order) from `models` (in order of
    /// preference: each hour comes from the first model that has it).
    static func observations(
        from body: Data, for boxes: [GeoBox], models: [String], maximumGridDistance: Double
    ) throws(OpenMeteoDecodingError) -> [ObservedHours] {
        var result: [ObservedHours] = []
        result.reserveCapacity(boxes.count)
        for (box, payload) in zip(boxes, try OpenMeteoDecoder.locations(from: body, for: boxes)) {
            result.append(try observed(payload, for: box, models: models, maximumGridDistance: maximumGridDistance))
        }
        return result
    }

    static func observed(
        _ payload: OpenMeteoLocationPayload, for box: GeoBox, models: [String], maximumGridDistance: Double
    ) throws(OpenMeteoDecodingError) -> ObservedHours {
        try OpenMeteoDecoder.requireNear(payload, box, maximumGridDistance: maximumGridDistance)
        let (times, _, _, _) = try OpenMeteoDecoder.axis(payload, box: box)
        guard !times.isEmpty else { throw OpenMeteoDecodingError("location \(box) has no hours") }
        let units = try OpenMeteoDecoder.Units(payload.hourlyUnits ?? [:])
        let suffixes = models.count > 1 ? models.map { "_" + $0 } : [""]
        var columns: [NumberSeries] = []
        for suffix in suffixes {
            guard let column = payload.hourly.series["temperature_2m" + suffix] else {
                throw OpenMeteoDecodingError("location \(box) has no temperature_2m\(suffix)")
            }
            guard column.count == times.count else { throw OpenMeteoDecodingError("location \(box) has series of different lengths") }
            columns.append(column)
        }
        // Each hour from the first model (in the order asked) that has analysed it.
        let temperatures = times.indices.map { i in
            units.celsius(columns.lazy.compactMap { finite($0[i]) }.first)
        }
        return ObservedHours(box: box, times: times, temperaturesC: temperatures)
    }
}
