/// Per-subscription alert settings. Thresholds are in °C; nil means the rule preset's value.
public struct AlertSettings: Sendable, Hashable, Codable {
    /// Rule preset name (`default`, `legacy`); nil means the configured preset.
    public var rule: String?
    /// Frost-risk threshold in °C.
    public var frostRiskC: Double?
    /// Freeze threshold in °C.
    public var freezeC: Double?
    /// Hard-freeze threshold in °C.
    public var hardFreezeC: Double?
    /// Send an all-clear when an alerted event's forecast warms up again.
    public var allClear: Bool
    /// When on the place's wall clock its alerts may go out (`notify_after`/`notify_before`);
    /// nil: any time.
    public var window: DeliveryWindow?
    /// The chance of frost (0…1) at which a level is alerted when the server has ensembles
    /// (`min_probability`, issue #47); 0: the deterministic verdict alone; nil: the
    /// configured default (0.5 unless set).
    public var minProbability: Double?

    public init(
        rule: String? = nil, frostRiskC: Double? = nil, freezeC: Double? = nil, hardFreezeC: Double? = nil, allClear: Bool = false,
        window: DeliveryWindow? = nil, minProbability: Double? = nil
    ) {
        self.rule = rule
        self.frostRiskC = frostRiskC
        self.freezeC = freezeC
        self.hardFreezeC = hardFreezeC
        self.allClear = allClear
        self.window = window
        self.minProbability = minProbability
    }

    public static let `default` = AlertSettings()
}

/// A device's subscription to a place, as stored.
public struct Subscription: Sendable, Hashable {
    /// Store-assigned id.
    public var id: Int64
    public var token: DeviceToken
    public var coordinate: Coordinate
    public var box: GeoBox { coordinate.box }
    public var name: PlaceName
    public var unit: TemperatureUnit
    /// Epoch seconds.
    public var createdAt: Int64
    public var settings: AlertSettings

    public init(
        id: Int64, token: DeviceToken, coordinate: Coordinate, name: PlaceName, unit: TemperatureUnit, createdAt: Int64, settings: AlertSettings = .default
    ) {
        self.id = id
        self.token = token
        self.coordinate = coordinate
        self.name = name
        self.unit = unit
        self.createdAt = createdAt
        self.settings = settings
    }
}

/// A subscription a client asks for, already validated.
public struct NewSubscription: Sendable, Hashable {
    public var coordinate: Coordinate
    public var name: PlaceName
    public var unit: TemperatureUnit
    public var settings: AlertSettings

    public init(coordinate: Coordinate, name: PlaceName, unit: TemperatureUnit = .celsius, settings: AlertSettings = .default) {
        self.coordinate = coordinate
        self.name = name
        self.unit = unit
        self.settings = settings
    }
}
