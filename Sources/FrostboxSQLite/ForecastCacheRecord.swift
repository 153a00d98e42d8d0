import Foundation
import FrostboxCore
import FrostboxStorageFormats
import GRDB

/// Row of the `forecast_cache` table: one box's last fetched forecast.
struct ForecastCacheRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "forecast_cache"

    var box: Int64
    var fetchedAt: Int64
    var timezone: String
    var utcOffsetSeconds: Int
    var gridLatitude: Double
    var gridLongitude: Double
    var elevation: Double?
    var hourCount: Int
    var hours: Data
    /// The model runs it came from (`ModelRunsCodec`); empty when not known.
    var runs: String

    enum CodingKeys: String, CodingKey {
        case box, timezone, elevation, hours, runs
        case fetchedAt = "fetched_at"
        case utcOffsetSeconds = "utc_offset_seconds"
        case gridLatitude = "grid_latitude"
        case gridLongitude = "grid_longitude"
        case hourCount = "hour_count"
    }

    enum Columns {
        static let box = Column(CodingKeys.box)
        static let fetchedAt = Column(CodingKeys.fetchedAt)
    }

    init(_ forecast: BoxForecast) {
        box = forecast.boxKey
        fetchedAt = forecast.fetchedAt
        timezone = forecast.timezone
        utcOffsetSeconds = forecast.utcOffsetSeconds
        gridLatitude = forecast.gridLatitude
        gridLongitude = forecast.gridLongitude
        elevation = forecast.elevation
        hourCount = forecast.hours.count
        hours = ForecastHoursCodec.encode(forecast.hours)
        runs = ModelRunsCodec.encode(forecast.runs)
    }

    /// The forecast, or nil when the row's box key or series is damaged.
    var forecast: BoxForecast? {
        guard let geoBox = GeoBox(key: box), let series = ForecastHoursCodec.decode(hours), series.count == hourCount,
            let runs = ModelRunsCodec.decode(runs)
        else {
            return nil
        }
        return BoxForecast(
            box: geoBox, timezone: timezone, utcOffsetSeconds: utcOffsetSeconds, gridLatitude: gridLatitude,
            gridLongitude: gridLongitude, elevation: elevation, fetchedAt: fetchedAt, hours: series, runs: runs)
    }
}
