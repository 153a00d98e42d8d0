import Foundation

/// When a box's planned alerts go out: each alert's device quiet hours and the delivery
/// windows of the places it names, on the forecast's wall clock. Worked out once per distinct
/// combination in a box (its devices mostly share a few), and not at all for a device with
/// neither.
struct DeliveryTimings {
    private struct Key: Hashable {
        var windows: [DeliveryWindow]
        var quiet: QuietHours?
    }

    let forecast: BoxForecast
    let now: Int64
    private var zone: TimeZone?
    private var earliest: [Key: Int64?] = [:]

    init(forecast: BoxForecast, now: Int64) {
        self.forecast = forecast
        self.now = now
    }

    /// The timing of `alert`, which names `places[named]` of one device (oldest first). The
    /// alert is about each named place, so it may go out when any of their windows is open: a
    /// named place without a window takes it at any time.
    mutating func timing(of alert: PlannedAlert, named: [Int], in places: [SubscribedPlace]) -> DeliveryTiming {
        let owner = places[named[0]]
        var windows: [DeliveryWindow] = []
        for index in named {
            guard let window = places[index].settings.window else {
                windows = []
                break
            }
            if !windows.contains(window) { windows.append(window) }
        }
        guard !windows.isEmpty || owner.quietHours != nil else { return .now }
        let key = Key(windows: windows, quiet: owner.quietHours)
        let first: Int64?
        if let known = earliest[key] {
            first = known
        } else {
            let zone = self.zone ?? AlertPlanner.zone(of: forecast, at: now)
            self.zone = zone
            first = DeliveryTiming.earliestDelivery(from: now, windows: windows, quiet: owner.quietHours, in: zone)
            earliest[key] = .some(first)
        }
        return DeliveryTiming(
            level: alert.event.level, earliest: first, now: now, deadline: alert.frostStartsAt ?? alert.windowEnd,
            hardFreezeBreaksThrough: owner.hardFreezeBreaksQuietHours)
    }
}
