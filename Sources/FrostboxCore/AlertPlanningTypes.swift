/// What alert planning takes and gives: the frost event, the subscribed places with their
/// devices' facts, what was sent before, and the planned alerts (the planner is in
/// `AlertPlanning.swift`, the push each alert becomes in `PlannedAlert+Payload.swift`).

/// A frost event: one box, one local night, one level. An all-clear is recorded as the
/// night's event at level `.none`, so it too goes out at most once.
public struct FrostEvent: Sendable, Hashable, Comparable, CustomStringConvertible {
    public var box: GeoBox
    /// Local date of the evening the night starts on.
    public var night: LocalDate
    public var level: FrostLevel

    public init(box: GeoBox, night: LocalDate, level: FrostLevel) {
        self.box = box
        self.night = night
        self.level = level
    }

    /// `60.20#25.05/2026-05-12/freeze`.
    public var description: String { "\(box)/\(night)/\(level)" }

    public static func < (a: FrostEvent, b: FrostEvent) -> Bool {
        (a.box.key, a.night, a.level) < (b.box.key, b.night, b.level)
    }
}

/// What an alert says: first frost of a night, a colder level later that night, or the all-clear.
public enum AlertKind: String, Sendable, Hashable, Codable, CaseIterable {
    case frost
    case escalation
    case allClear = "all-clear"
}

/// One subscription as alert planning needs it, with the facts of its device.
public struct SubscribedPlace: Sendable, Hashable {
    /// The subscription's id; a device's places are named oldest first.
    public var subscriptionID: Int64
    public var token: DeviceToken
    public var name: String
    public var unit: TemperatureUnit
    public var settings: AlertSettings
    /// The device's platform.
    public var platform: DevicePlatform
    /// The device's app: bundle id or package name (nil: the platform's configured default app).
    public var app: String?
    /// The device's delivery environment (nil: the configured default; iOS only).
    public var environment: PushEnvironment?
    /// The device's quiet hours on the place's wall clock (nil: none).
    public var quietHours: QuietHours?
    /// Whether the device lets a hard-freeze alert through its quiet hours (and through its
    /// subscriptions' delivery windows).
    public var hardFreezeBreaksQuietHours: Bool
    /// The store's own key of the device (nil when the store has none to give): carried
    /// through planning into the outbox write, which then need not find the device by token.
    public var deviceKey: Int64?

    public init(
        subscriptionID: Int64, token: DeviceToken, name: String, unit: TemperatureUnit, settings: AlertSettings = .default,
        platform: DevicePlatform = .ios, app: String? = nil, environment: PushEnvironment? = nil,
        quietHours: QuietHours? = nil, hardFreezeBreaksQuietHours: Bool = false
    ) {
        self.subscriptionID = subscriptionID
        self.token = token
        self.name = name
        self.unit = unit
        self.settings = settings
        self.platform = platform
        self.app = app
        self.environment = environment
        self.quietHours = quietHours
        self.hardFreezeBreaksQuietHours = hardFreezeBreaksQuietHours
    }
}

/// An event a device has already been sent (or has queued in the outbox).
public struct AlertedEvent: Sendable, Hashable {
    public var token: DeviceToken
    public var event: FrostEvent
    public var kind: AlertKind
    /// Held for quiet hours and never sent (still held, or ended while held): the person has
    /// not seen it, so a later alert of its night is their first.
    public var neverSent: Bool

    public init(token: DeviceToken, event: FrostEvent, kind: AlertKind, neverSent: Bool = false) {
        self.token = token
        self.event = event
        self.kind = kind
        self.neverSent = neverSent
    }
}

/// An alert decided by planning: one device, one box, one event. Turned into a push by
/// `notification(messageID:)` (see `PlannedAlert+Payload.swift`).
public struct PlannedAlert: Sendable, Hashable {
    public var token: DeviceToken
    /// The store's key of the device, from its `SubscribedPlace` (nil: found by token).
    public var deviceKey: Int64?
    public var platform: DevicePlatform
    public var app: String?
    public var environment: PushEnvironment?
    public var event: FrostEvent
    public var kind: AlertKind
    /// The device's place names in this box that the alert is about, oldest subscription first.
    public var places: [String]
    /// The unit of the first named place's subscription.
    public var unit: TemperatureUnit
    /// The night's lowest temperature over the named places, °C.
    public var minimumC: Double?
    /// When that low is forecast, on the place's wall clock.
    public var coldestAt: LocalDateTime?
    /// End of the frost window (UTC epoch seconds): after it the alert is stale.
    public var windowEnd: Int64
    public var relativeNight: RelativeNight
    /// When the frost at the alert's level begins (UTC epoch seconds; nil for an all-clear):
    /// a held alert released after it no longer helps.
    public var frostStartsAt: Int64?
    /// When it goes out: at once, breaking through quiet hours or a delivery window, or held
    /// until both allow it.
    public var timing: DeliveryTiming = .now
    /// An escalation whose earlier alerts of the night were all held and never sent: it is
    /// worded as a first alert.
    public var isFirstSeen = false
    /// The chance (0…1) of the alert's level (of the alerted level, for an all-clear) when the
    /// alert was decided by probability; nil: by the deterministic verdict.
    public var probability: Double?
    /// The °C threshold the probability is of (`P(low ≤ thresholdC)`), with `probability`.
    public var thresholdC: Double?

    public init(
        token: DeviceToken, platform: DevicePlatform = .ios, app: String? = nil, environment: PushEnvironment? = nil, event: FrostEvent, kind: AlertKind,
        places: [String],
        unit: TemperatureUnit, minimumC: Double?, coldestAt: LocalDateTime?, windowEnd: Int64, relativeNight: RelativeNight
    ) {
        self.token = token
        self.platform = platform
        self.app = app
        self.environment = environment
        self.event = event
        self.kind = kind
        self.places = places
        self.unit = unit
        self.minimumC = minimumC
        self.coldestAt = coldestAt
        self.windowEnd = windowEnd
        self.relativeNight = relativeNight
    }
}

/// The outcome of planning one box.
public struct BoxPlan: Sendable {
    /// At most one alert per (device, event), devices in token order, nights in time order.
    public var alerts: [PlannedAlert]
    /// How many verdicts were computed: one per distinct rule among the box's subscriptions.
    public var verdictsComputed: Int

    public init(alerts: [PlannedAlert] = [], verdictsComputed: Int = 0) {
        self.alerts = alerts
        self.verdictsComputed = verdictsComputed
    }
}
