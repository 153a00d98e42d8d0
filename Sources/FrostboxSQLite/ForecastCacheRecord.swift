import Foundation
import FrostboxCore
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

    enum CodingKeys: String, CodingKey {
        case box, timezone, elevation, hours
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
    }

    /// The forecast, or nil when the row's box key or series is damaged.
    var forecast: BoxForecast? {
        guard let geoBox = GeoBox(key: box), let series = ForecastHoursCodec.decode(hours), series.count == hourCount else {
            return nil
        }
        return BoxForecast(
            box: geoBox, timezone: timezone, utcOffsetSeconds: utcOffsetSeconds, gridLatitude: gridLatitude,
            gridLongitude: gridLongitude, elevation: elevation, fetchedAt: fetchedAt, hours: series)
    }
}

/// A compact binary form of an hourly series: 28 bytes an hour instead of ~150 as JSON.
///
/// Version byte 1, then per hour: UTC time (Int64), wall-clock offset from UTC in seconds
/// (Int32), and temperature, dew point, cloud cover and wind speed as Int32 hundredths
/// (Int32.min for a missing value), all little-endian. Open-Meteo reports one decimal, so
/// hundredths round-trip exactly.
enum ForecastHoursCodec {
    static let version: UInt8 = 1
    static let bytesPerHour = 28
    static let missing = Int32.min

    static func encode(_ hours: [ForecastHour]) -> Data {
        var bytes = [UInt8]()
        bytes.reserveCapacity(1 + hours.count * bytesPerHour)
        bytes.append(version)
        for hour in hours {
            append(&bytes, UInt64(bitPattern: hour.time), count: 8)
            let offset = Int32(clamping: hour.local.wallClockSeconds - hour.time)
            append(&bytes, UInt64(UInt32(bitPattern: offset)), count: 4)
            for value in [hour.temperatureC, hour.dewPointC, hour.cloudCoverPercent, hour.windSpeedKmh] {
                append(&bytes, UInt64(UInt32(bitPattern: hundredths(value))), count: 4)
            }
        }
        return Data(bytes)
    }

    static func decode(_ data: Data) -> [ForecastHour]? {
        guard let first = data.first, first == version, (data.count - 1) % bytesPerHour == 0 else { return nil }
        let count = (data.count - 1) / bytesPerHour
        return data.withUnsafeBytes { raw -> [ForecastHour] in
            var hours: [ForecastHour] = []
            hours.reserveCapacity(count)
            func int32(_ at: Int) -> Int32 { Int32(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: Int32.self)) }
            func value(_ at: Int) -> Double? {
                let stored = int32(at)
                return stored == missing ? nil : Double(stored) / 100
            }
            for i in 0..<count {
                let at = 1 + i * bytesPerHour
                let time = Int64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: Int64.self))
                let offset = Int64(int32(at + 8))
                hours.append(
                    ForecastHour(
                        time: time, local: LocalDateTime(wallClockSeconds: time + offset), temperatureC: value(at + 12),
                        dewPointC: value(at + 16), cloudCoverPercent: value(at + 20), windSpeedKmh: value(at + 24)))
            }
            return hours
        }
    }

    static func hundredths(_ value: Double?) -> Int32 {
        guard let value, value.isFinite else { return missing }
        let scaled = (value * 100).rounded()
        guard scaled > Double(Int32.min), scaled <= Double(Int32.max) else { return missing }
        return Int32(scaled)
    }

    private static func append(_ bytes: inout [UInt8], _ value: UInt64, count: Int) {
        for i in 0..<count { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(i)))) }
    }
}
