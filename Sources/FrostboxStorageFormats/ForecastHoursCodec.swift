import Foundation
import FrostboxCore

/// A compact binary form of an hourly series: 28 bytes an hour instead of ~150 as JSON.
///
/// Version byte 1, then per hour: UTC time (Int64), wall-clock offset from UTC in seconds
/// (Int32), and temperature, dew point, cloud cover and wind speed as Int32 hundredths
/// (Int32.min for a missing value), all little-endian. Open-Meteo reports one decimal, so
/// hundredths round-trip exactly.
public enum ForecastHoursCodec {
    public static let version: UInt8 = 1
    public static let bytesPerHour = 28
    static let missing = Int32.min

    public static func encode(_ hours: [ForecastHour]) -> Data {
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

    public static func decode(_ data: Data) -> [ForecastHour]? {
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
