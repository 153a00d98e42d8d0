import Foundation

/// A daily span of a place's wall clock in which a device wants no ordinary alerts, e.g.
/// 22:00–07:00. It may cross midnight; start and end differ. An alert planned inside it is
/// held until the span ends (see `DeliveryTiming`).
public struct QuietHours: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Minutes after local midnight the span starts, 0..<1440.
    public let startMinute: Int
    /// Minutes after local midnight the span ends (the first minute alerts may go out again).
    public let endMinute: Int

    /// Nil unless both minutes lie in 0..<1440 and differ.
    public init?(startMinute: Int, endMinute: Int) {
        guard (0..<1440).contains(startMinute), (0..<1440).contains(endMinute), startMinute != endMinute else { return nil }
        self.startMinute = startMinute
        self.endMinute = endMinute
    }

    /// From `HH:MM` texts; `field` names the input for the error.
    public init(start: String, end: String, field: String) throws(ValidationError) {
        guard let startMinute = Self.minute(parsing: start) else {
            throw ValidationError(.invalidField, field: "\(field).start", "\(field).start must be a time HH:MM, 00:00 to 23:59")
        }
        guard let endMinute = Self.minute(parsing: end) else {
            throw ValidationError(.invalidField, field: "\(field).end", "\(field).end must be a time HH:MM, 00:00 to 23:59")
        }
        guard let value = QuietHours(startMinute: startMinute, endMinute: endMinute) else {
            throw ValidationError(.invalidField, field: field, "\(field) must have different start and end times")
        }
        self = value
    }

    /// `HH:MM` → minutes after midnight; nil unless exactly two digits, a colon and two digits.
    public static func minute(parsing text: String) -> Int? {
        let bytes = Array(text.utf8)
        guard bytes.count == 5, bytes[2] == UInt8(ascii: ":") else { return nil }
        var digits: [Int] = []
        for index in [0, 1, 3, 4] {
            guard (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else { return nil }
            digits.append(Int(bytes[index] - UInt8(ascii: "0")))
        }
        let hour = digits[0] * 10 + digits[1], minute = digits[2] * 10 + digits[3]
        guard hour < 24, minute < 60 else { return nil }
        return hour * 60 + minute
    }

    /// `HH:MM` of a minute after midnight.
    public static func clockText(_ minute: Int) -> String {
        LocalDateTime(date: LocalDate(year: 1970, month: 1, day: 1), hour: minute / 60, minute: minute % 60).clockText
    }

    public var start: String { Self.clockText(startMinute) }
    public var end: String { Self.clockText(endMinute) }

    /// `22:00–07:00`.
    public var description: String { "\(start)–\(end)" }

    /// Whether a wall-clock minute after midnight lies inside the span.
    public func contains(minuteOfDay m: Int) -> Bool {
        startMinute < endMinute ? (startMinute <= m && m < endMinute) : (m >= startMinute || m < endMinute)
    }

    /// When the span around `instant` (UTC epoch seconds) ends, on the wall clock of `zone`:
    /// nil when `instant` is outside the span. DST-correct: the local time is the zone's at
    /// that instant, and the end is the first instant showing the end time (a time skipped by
    /// a spring-forward night resolves as a clock set before it would, 03:30 to 04:30; a time
    /// repeated by a fall-back night to its first occurrence).
    public func end(around instant: Int64, in zone: TimeZone) -> Int64? {
        let wall = instant + Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(instant))))
        let minuteOfDay = Int(((wall % 86_400) + 86_400) % 86_400 / 60)
        guard contains(minuteOfDay: minuteOfDay) else { return nil }
        let midnight = wall - (((wall % 86_400) + 86_400) % 86_400)
        // The end falls on the same local day unless the span crosses midnight and we are before it.
        let endDay = (startMinute > endMinute && minuteOfDay >= startMinute) ? midnight + 86_400 : midnight
        return Self.instant(ofWallClock: endDay + Int64(endMinute) * 60, in: zone)
    }

    /// The first UTC instant at which `zone`'s wall clock shows `wall` (wall-clock seconds
    /// since 1970-01-01T00:00); a wall time skipped by a gap is read with the offset before it.
    static func instant(ofWallClock wall: Int64, in zone: TimeZone) -> Int64 {
        func offset(_ t: Int64) -> Int64 { Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(t)))) }
        // The two offsets around the wall time (they differ only near a transition).
        let early = offset(wall - 86_400), late = offset(wall + 86_400)
        let candidates = [wall - early, wall - late].filter { $0 + offset($0) == wall }
        if let first = candidates.min() { return first }
        return wall - early
    }
}

/// When a planned alert goes out.
public enum DeliveryTiming: Sendable, Hashable {
    /// Outside quiet hours and inside the delivery window (or none set): at once, as always.
    case now
    /// Inside quiet hours or outside the delivery window, but a hard freeze the device lets
    /// break through: at once, time-sensitive.
    case breakThrough
    /// Inside quiet hours or outside the delivery window: held in the outbox until `until`
    /// (UTC epoch seconds), the earliest instant both allow (see `earliestDelivery`).
    case hold(until: Int64)

    /// Whether a held alert released at `now` still helps: not when its frost has begun
    /// (`frostStartsAt`, nil for an all-clear) or its window is over (`windowEnd`).
    public static func heldAlertStillHelps(at now: Int64, frostStartsAt: Int64?, windowEnd: Int64?) -> Bool {
        if let frostStartsAt, frostStartsAt <= now { return false }
        if let windowEnd, windowEnd <= now { return false }
        return true
    }
}
