import Foundation

/// A subscription's daily delivery window on the place's wall clock: its alerts go out only
/// at a local time in [`notify_after`, `notify_before`), e.g. 16:00–22:00 ("warn me in the
/// evening before, not at 3 a.m."). A missing bound is the day's edge: `notify_after` alone
/// is the span from it to midnight, `notify_before` alone the span from midnight to it. It
/// may cross midnight (16:00–08:00); the two bounds differ.
///
/// Planning combines it with the device's quiet hours: an alert goes out at the earliest
/// instant, from the planning run on, whose local time is inside the window and outside
/// quiet hours (`DeliveryTiming.earliestDelivery`). Until then it is held in the outbox like
/// a quiet-hours alert, and dropped as held-expired when its frost has begun by then. A
/// hard-freeze alert breaks through the window as it breaks through quiet hours when the
/// device allows that (`Device.hardFreezeBreaksQuietHours`): it is the alert a grower must act on.
public struct DeliveryWindow: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Minutes after local midnight the window opens, 0..<1440; nil: at midnight.
    public let afterMinute: Int?
    /// Minutes after local midnight the window closes (the first minute outside it), 0..<1440;
    /// nil: at midnight, the end of the day.
    public let beforeMinute: Int?

    /// Nil unless at least one bound is set, each lies in 0..<1440, they differ, and the
    /// window is not empty (`notify_before` 00:00 alone would be).
    public init?(afterMinute: Int?, beforeMinute: Int?) {
        guard afterMinute != nil || beforeMinute != nil else { return nil }
        if let afterMinute, !(0..<1440).contains(afterMinute) { return nil }
        if let beforeMinute, !(0..<1440).contains(beforeMinute) { return nil }
        guard afterMinute != beforeMinute, !(afterMinute == nil && beforeMinute == 0) else { return nil }
        self.afterMinute = afterMinute
        self.beforeMinute = beforeMinute
    }

    /// From the `HH:MM` texts a client sent (nil: not sent); nil when neither was. `field`
    /// prefixes the fields named in errors (`settings` → `settings.notify_after`).
    public static func parsing(after: String?, before: String?, field: String) throws(ValidationError) -> DeliveryWindow? {
        let afterField = "\(field).notify_after", beforeField = "\(field).notify_before"
        var afterMinute: Int?
        var beforeMinute: Int?
        if let after {
            guard let minute = QuietHours.minute(parsing: after) else {
                throw ValidationError(.invalidField, field: afterField, "\(afterField) must be a time HH:MM, 00:00 to 23:59")
            }
            afterMinute = minute
        }
        if let before {
            guard let minute = QuietHours.minute(parsing: before) else {
                throw ValidationError(.invalidField, field: beforeField, "\(beforeField) must be a time HH:MM, 00:00 to 23:59")
            }
            beforeMinute = minute
        }
        guard afterMinute != nil || beforeMinute != nil else { return nil }
        if afterMinute == beforeMinute {
            throw ValidationError(
                .invalidField, field: beforeField,
                "\(beforeField) must differ from \(afterField) (a window may cross midnight, e.g. 16:00 to 08:00)")
        }
        guard let window = DeliveryWindow(afterMinute: afterMinute, beforeMinute: beforeMinute) else {
            throw ValidationError(
                .invalidField, field: beforeField, "\(beforeField) 00:00 without \(afterField) leaves no time to alert in")
        }
        return window
    }

    /// `notify_after` as `HH:MM`, nil when not set.
    public var after: String? { afterMinute.map(QuietHours.clockText) }
    /// `notify_before` as `HH:MM`, nil when not set.
    public var before: String? { beforeMinute.map(QuietHours.clockText) }

    /// `16:00–22:00`; a missing bound shows as `00:00` or `24:00`.
    public var description: String { "\(after ?? "00:00")–\(before ?? "24:00")" }

    /// Whether a wall-clock minute after midnight lies inside the window.
    public func contains(minuteOfDay m: Int) -> Bool {
        let start = afterMinute ?? 0, end = beforeMinute ?? 1440
        return start < end ? (start <= m && m < end) : (m >= start || m < end)
    }
}

extension DeliveryTiming {
    /// The first instant at or after `now` (UTC epoch seconds) at which an alert may go out:
    /// its wall-clock minute in `zone` lies inside one of `windows` (empty: any minute will
    /// do) and outside `quiet` (nil: no quiet hours). Nil when no such instant comes within
    /// three days: the windows lie inside the quiet hours, or a spring-forward night skips
    /// the only window.
    ///
    /// DST-correct as `QuietHours.end(around:in:)`: the allowed set can only begin at now, at
    /// a window's opening or at the end of quiet hours, each read as the first instant the
    /// zone's clock shows it (a time a spring-forward night skips resolves as a clock set
    /// before it would; a time a fall-back night repeats, to its first occurrence).
    public static func earliestDelivery(from now: Int64, windows: [DeliveryWindow], quiet: QuietHours?, in zone: TimeZone) -> Int64? {
        func offset(_ t: Int64) -> Int64 { Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(t)))) }
        func allowed(_ t: Int64) -> Bool {
            let wall = t + offset(t)
            let minute = Int(((wall % 86_400) + 86_400) % 86_400 / 60)
            if let quiet, quiet.contains(minuteOfDay: minute) { return false }
            return windows.isEmpty || windows.contains { $0.contains(minuteOfDay: minute) }
        }
        if allowed(now) { return now }
        var openings = Set(windows.map { $0.afterMinute ?? 0 })
        if let quiet { openings.insert(quiet.endMinute) }
        let wall = now + offset(now)
        let midnight = wall - (((wall % 86_400) + 86_400) % 86_400)
        var candidates: [Int64] = []
        for day in 0...3 {
            for minute in openings {
                let t = QuietHours.instant(ofWallClock: midnight + Int64(day) * 86_400 + Int64(minute) * 60, in: zone)
                if t > now { candidates.append(t) }
            }
        }
        return candidates.sorted().first(where: allowed)
    }

    /// The timing of an alert at `level` whose earliest allowed instant is `earliest` (see
    /// `earliestDelivery`; nil: none comes): at once when that is `now`; at once, time-sensitive,
    /// for a hard freeze the device lets break through; otherwise held until it — or, when
    /// none comes, until `deadline` (when the frost begins; for an all-clear, when its frost
    /// window ends), so that it is dropped then rather than kept.
    public init(level: FrostLevel, earliest: Int64?, now: Int64, deadline: Int64, hardFreezeBreaksThrough: Bool) {
        if earliest == now {
            self = .now
        } else if hardFreezeBreaksThrough && level == .hardFreeze {
            self = .breakThrough
        } else {
            self = .hold(until: earliest ?? max(deadline, now + 1))
        }
    }
}
