import Foundation
import FrostboxCore

/// A compact binary form of an ensemble's hours and values, stored alike by both database
/// adapters: 51 members × 72 hours is about 7 KB instead of ~25 KB as JSON.
///
/// Version byte 1, kind byte (0 members, 1 mean and spread), hour count (UInt32) and series
/// count (UInt32); per hour its UTC time (Int64) and wall-clock offset (Int32); then each
/// series' values as Int16 hundredths of °C (Int16.min for a missing value; ±327 °C is far
/// beyond any 2 m temperature), all little-endian. Open-Meteo reports one decimal, so values
/// round-trip exactly.
public enum EnsembleCodec {
    public static let version: UInt8 = 1
    static let missing = Int16.min

    public static func encode(_ ensemble: EnsembleForecast) -> Data {
        let series: [[Double?]]
        let kind: UInt8
        switch ensemble.values {
        case .members(let members):
            series = members
            kind = 0
        case .spread(let mean, let spread):
            series = [mean, spread]
            kind = 1
        }
        var bytes = [UInt8]()
        bytes.reserveCapacity(10 + ensemble.hours.count * (12 + 2 * series.count))
        bytes.append(version)
        bytes.append(kind)
        append(&bytes, UInt64(ensemble.hours.count), count: 4)
        append(&bytes, UInt64(series.count), count: 4)
        for hour in ensemble.hours {
            append(&bytes, UInt64(bitPattern: hour.time), count: 8)
            append(&bytes, UInt64(UInt32(bitPattern: Int32(clamping: hour.local.wallClockSeconds - hour.time))), count: 4)
        }
        for values in series {
            for index in ensemble.hours.indices {
                let value = index < values.count ? values[index] : nil
                let stored = value.flatMap { $0.isFinite ? Int16(exactly: ($0 * 100).rounded()) : nil } ?? missing
                append(&bytes, UInt64(UInt16(bitPattern: stored)), count: 2)
            }
        }
        return Data(bytes)
    }

    /// The hours and values, or nil when the bytes are damaged.
    public static func decode(_ data: Data) -> (hours: [ForecastHour], values: EnsembleForecast.Values)? {
        guard data.count >= 10, data[data.startIndex] == version else { return nil }
        return data.withUnsafeBytes { raw -> (hours: [ForecastHour], values: EnsembleForecast.Values)? in
            let kind = raw[1]
            let hourCount = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 2, as: UInt32.self)))
            let seriesCount = Int(UInt32(littleEndian: raw.loadUnaligned(fromByteOffset: 6, as: UInt32.self)))
            guard kind <= 1, kind == 0 || seriesCount == 2, raw.count == 10 + hourCount * 12 + seriesCount * hourCount * 2 else { return nil }
            var hours: [ForecastHour] = []
            hours.reserveCapacity(hourCount)
            for index in 0..<hourCount {
                let at = 10 + index * 12
                let time = Int64(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: Int64.self))
                let offset = Int32(littleEndian: raw.loadUnaligned(fromByteOffset: at + 8, as: Int32.self))
                hours.append(ForecastHour(time: time, local: LocalDateTime(wallClockSeconds: time + Int64(offset)), temperatureC: nil))
            }
            var series: [[Double?]] = []
            series.reserveCapacity(seriesCount)
            var at = 10 + hourCount * 12
            for _ in 0..<seriesCount {
                var values: [Double?] = []
                values.reserveCapacity(hourCount)
                for _ in 0..<hourCount {
                    let stored = Int16(littleEndian: raw.loadUnaligned(fromByteOffset: at, as: Int16.self))
                    values.append(stored == missing ? nil : Double(stored) / 100)
                    at += 2
                }
                series.append(values)
            }
            return (hours, kind == 0 ? .members(series) : .spread(mean: series[0], spread: series[1]))
        }
    }

    static func append(_ bytes: inout [UInt8], _ value: UInt64, count: Int) {
        for shift in 0..<count { bytes.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(shift)))) }
    }
}
