import Foundation
import FrostboxCore

/// `{"token": "…"}`: the legacy `/register` body.
struct RegisterBody: Decodable {
    let token: String
    /// `ios` (absent) or `android`.
    let platform: String?
}

/// The legacy `/add_location` and `/remove_location` body.
struct LegacyLocationBody: Decodable {
    struct Location: Decodable {
        let latitude: FlexibleNumber
        let longitude: FlexibleNumber
        let name: String
        let unit: String?
    }
    let token: String
    /// `ios` (absent) or `android`.
    let platform: String?
    let location: Location
}

/// The optional body of `PUT /v1/devices/{token}`.
struct DeviceBody: Decodable {
    /// `ios` (absent) or `android`.
    let platform: String?
    /// The bundle id (iOS) or package name (Android).
    let app: String?
    /// The older name of `app`, for iOS apps.
    let topic: String?
    let environment: String?
    let locale: String?
}

/// The body of `POST /v1/devices/{token}/subscriptions`.
struct SubscriptionBody: Decodable {
    let latitude: FlexibleNumber
    let longitude: FlexibleNumber
    let name: String
    let unit: String?
    let settings: SettingsBody?
}

/// Per-subscription alert settings as sent by clients (thresholds in °C).
struct SettingsBody: Codable {
    var rule: String?
    var frostRiskC: Double?
    var freezeC: Double?
    var hardFreezeC: Double?
    var allClear: Bool?

    enum CodingKeys: String, CodingKey {
        case rule
        case frostRiskC = "frost_risk_c"
        case freezeC = "freeze_c"
        case hardFreezeC = "hard_freeze_c"
        case allClear = "all_clear"
    }
}

/// A subscription as answered to clients.
struct SubscriptionResponse: Encodable {
    let id: Int64
    let latitude: Double
    let longitude: Double
    let box: String
    let boxKey: Int64
    let name: String
    let unit: String
    let createdAt: String
    let settings: SettingsBody
    let created: Bool?

    enum CodingKeys: String, CodingKey {
        case id, latitude, longitude, box, name, unit, settings, created
        case boxKey = "box_key"
        case createdAt = "created_at"
    }

    init(_ subscription: Subscription, created: Bool? = nil) {
        id = subscription.id
        latitude = subscription.coordinate.latitude
        longitude = subscription.coordinate.longitude
        box = subscription.box.description
        boxKey = subscription.box.key
        name = subscription.name.value
        unit = subscription.unit.rawValue
        createdAt = Timestamp.iso8601(subscription.createdAt)
        settings = SettingsBody(
            rule: subscription.settings.rule, frostRiskC: subscription.settings.frostRiskC,
            freezeC: subscription.settings.freezeC, hardFreezeC: subscription.settings.hardFreezeC,
            allClear: subscription.settings.allClear)
        self.created = created
    }
}

/// A device as answered to clients.
struct DeviceResponse: Encodable {
    let token: String
    let platform: String
    let app: String?
    /// `app` under its older name, kept for existing iOS clients.
    let topic: String?
    let environment: String?
    let locale: String?
    let createdAt: String
    let registeredAt: String

    enum CodingKeys: String, CodingKey {
        case token, platform, app, topic, environment, locale
        case createdAt = "created_at"
        case registeredAt = "registered_at"
    }

    init(_ device: Device) {
        token = device.token.value
        platform = device.platform.rawValue
        app = device.app
        topic = device.app
        environment = device.environment?.rawValue
        locale = device.locale
        createdAt = Timestamp.iso8601(device.createdAt)
        registeredAt = Timestamp.iso8601(device.registeredAt)
    }
}

enum Timestamp {
    /// RFC 3339 UTC, e.g. `2026-11-21T19:43:00Z`.
    static func iso8601(_ epochSeconds: Int64) -> String {
        Date(timeIntervalSince1970: TimeInterval(epochSeconds)).formatted(.iso8601)
    }
}
