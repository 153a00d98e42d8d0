/// Which night an alert is about, as the recipient's wall clock names it when the alert goes
/// out (at once, or when its hold ends): from local midnight until noon the night that began
/// the evening before is the one now under way; the coming evening's night is tonight, the
/// next one tomorrow night, and those after it are named by weekday, then by date.
public enum RelativeNight: Sendable, Hashable {
    /// The night that began the evening before, between local midnight and noon.
    case underWay
    case tonight
    case tomorrowNight
    /// A night two to six days ahead, named by its weekday.
    case weekday
    /// Any other night, named by its date.
    case later

    /// The name of `night` (the date of the evening it starts on) at the wall-clock moment `local`.
    public init(night: LocalDate, at local: LocalDateTime) {
        if local.hour < 12, night == local.date.previous {
            self = .underWay
            return
        }
        switch night.daysSinceEpoch - local.date.daysSinceEpoch {
        case 0: self = .tonight
        case 1: self = .tomorrowNight
        case 2...6: self = .weekday
        default: self = .later
        }
    }
}
