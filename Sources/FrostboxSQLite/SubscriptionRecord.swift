import FrostboxCore
import GRDB

/// Row of the `subscription` table.
struct SubscriptionRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "subscription"

    var id: Int64?
    var token: String
    var latitude: Double
    var longitude: Double
    var box: Int64
    var name: String
    var unit: String
    var createdAt: Int64
    var rule: String?
    var frostRiskC: Double?
    var freezeC: Double?
    var hardFreezeC: Double?
    var allClear: Bool
    /// The delivery window's bounds, minutes after local midnight (`DeliveryWindow`).
    var notifyAfter: Int64?
    var notifyBefore: Int64?
    /// The chance of frost alerted at (NULL: the configured default).
    var minProbability: Double?

    enum CodingKeys: String, CodingKey {
        case id, token, latitude, longitude, box, name, unit, rule
        case createdAt = "created_at"
        case frostRiskC = "frost_risk_c"
        case freezeC = "freeze_c"
        case hardFreezeC = "hard_freeze_c"
        case allClear = "all_clear"
        case notifyAfter = "notify_after"
        case notifyBefore = "notify_before"
        case minProbability = "min_probability"
    }

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let token = Column(CodingKeys.token)
    }

    init(token: DeviceToken, new: NewSubscription, createdAt: Int64) {
        id = nil
        self.token = token.value
        latitude = new.coordinate.latitude
        longitude = new.coordinate.longitude
        box = new.coordinate.box.key
        name = new.name.value
        unit = new.unit.rawValue
        self.createdAt = createdAt
        rule = new.settings.rule
        frostRiskC = new.settings.frostRiskC
        freezeC = new.settings.freezeC
        hardFreezeC = new.settings.hardFreezeC
        allClear = new.settings.allClear
        notifyAfter = new.settings.window?.afterMinute.map(Int64.init)
        notifyBefore = new.settings.window?.beforeMinute.map(Int64.init)
        minProbability = new.settings.minProbability
    }

    var subscription: Subscription {
        Subscription(
            id: id ?? 0,
            token: DeviceToken(trusted: token),
            coordinate: Coordinate(uncheckedLatitude: latitude, longitude: longitude),
            name: PlaceName(trusted: name),
            unit: TemperatureUnit(rawValue: unit) ?? .celsius,
            createdAt: createdAt,
            settings: AlertSettings(
                rule: rule, frostRiskC: frostRiskC, freezeC: freezeC, hardFreezeC: hardFreezeC, allClear: allClear,
                window: GRDBNotifierStore.window(notifyAfter, notifyBefore), minProbability: minProbability))
    }
}
