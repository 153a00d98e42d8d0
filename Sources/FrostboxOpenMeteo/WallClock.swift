import Foundation
import FrostboxCore
import Synchronization

/// UTC instants to a place's wall clock through the IANA time zone database, DST included.
///
/// Open-Meteo states one `utc_offset_seconds` for a whole answer (the offset at its start),
/// so its local ISO times are an hour off after a DST change within the horizon. Frostbox
/// asks for `timeformat=unixtime` and derives each hour's wall clock from the answer's IANA
/// `timezone` with Foundation's `TimeZone`; an unknown zone falls back to the fixed offset.
enum WallClock {
    private static let zones = Mutex<[String: TimeZone]>([:])

    static func zone(_ identifier: String) -> TimeZone? {
        if let cached = zones.withLock({ $0[identifier] }) { return cached }
        guard let zone = TimeZone(identifier: identifier) else { return nil }
        zones.withLock { $0[identifier] = zone }
        return zone
    }

    /// The wall clock of each instant (UTC epoch seconds, ascending).
    static func localTimes(for times: [Int64], timezone: String, fallbackOffset: Int) -> [LocalDateTime] {
        guard let first = times.first, let last = times.last else { return [] }
        guard let zone = zone(timezone) else {
            return times.map { LocalDateTime(wallClockSeconds: $0 + Int64(fallbackOffset)) }
        }
        let firstOffset = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(first))))
        let transition = zone.nextDaylightSavingTimeTransition(after: Date(timeIntervalSince1970: TimeInterval(first)))
        let lastOffset = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(last))))
        if lastOffset == firstOffset, transition.map({ Int64($0.timeIntervalSince1970) > last }) ?? true {
            // The common case: no offset change within the series.
            return times.map { LocalDateTime(wallClockSeconds: $0 + firstOffset) }
        }
        return times.map { time in
            let offset = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(time))))
            return LocalDateTime(wallClockSeconds: time + offset)
        }
    }

    /// The UTC offset of a zone at an instant, seconds (nil for an unknown zone).
    static func offset(of timezone: String, at time: Int64) -> Int? {
        zone(timezone)?.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(time)))
    }
}
