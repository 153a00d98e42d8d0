import Foundation
import FrostboxCore

/// `{"token": "…"}`: the legacy `/register` body.
struct RegisterBody: RequestBody {
    let token: String
    /// `ios` (absent) or `android`.
    let platform: String?

    /// The existing app's body is taken as it comes: a member it adds is ignored.
    static let fields = JSONFields.any
}

/// The legacy `/add_location` and `/remove_location` body.
struct LegacyLocationBody: RequestBody {
    /// The existing app's body is taken as it comes: a member it adds is ignored.
    static let fields = JSONFields.any

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
struct DeviceBody: RequestBody {
    static let fields = JSONFields.keys(CodingKeys.self, nested: ["quiet_hours": .keys(QuietHoursBody.CodingKeys.self)])

    /// `ios` (absent) or `android`.
    let platform: String?
    /// The bundle id (iOS) or package name (Android).
    let app: String?
    /// The older name of `app`, for iOS apps.
    let topic: String?
    let environment: String?
    let locale: String?
    /// Absent: keep; `null`: remove; an object: set.
    let quietHours: QuietHoursField
    let hardFreezeBreaksQuietHours: Bool?

    /// `quiet_hours` as sent: absent, `null`, or `{"start": "HH:MM", "end": "HH:MM"}`.
    enum QuietHoursField {
        case absent
        case null
        case span(QuietHoursBody)
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case platform, app, topic, environment, locale
        case quietHours = "quiet_hours"
        case hardFreezeBreaksQuietHours = "hard_freeze_breaks_quiet_hours"
    }

    init(
        platform: String?, app: String?, topic: String?, environment: String?, locale: String?, quietHours: QuietHoursField = .absent,
        hardFreezeBreaksQuietHours: Bool? = nil
    ) {
        self.platform = platform
        self.app = app
        self.topic = topic
        self.environment = environment
        self.locale = locale
        self.quietHours = quietHours
        self.hardFreezeBreaksQuietHours = hardFreezeBreaksQuietHours
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        platform = try container.decodeIfPresent(String.self, forKey: .platform)
        app = try container.decodeIfPresent(String.self, forKey: .app)
        topic = try container.decodeIfPresent(String.self, forKey: .topic)
        environment = try container.decodeIfPresent(String.self, forKey: .environment)
        locale = try container.decodeIfPresent(String.self, forKey: .locale)
        hardFreezeBreaksQuietHours = try container.decodeIfPresent(Bool.self, forKey: .hardFreezeBreaksQuietHours)
        if !container.contains(.quietHours) {
            quietHours = .absent
        } else if try container.decodeNil(forKey: .quietHours) {
            quietHours = .null
        } else {
            do {
                quietHours = .span(try container.decode(QuietHoursBody.self, forKey: .quietHours))
            } catch DecodingError.typeMismatch(_, let context) where context.codingPath.last?.stringValue == CodingKeys.quietHours.stringValue {
                throw ValidationError(.invalidField, field: "quiet_hours", QuietHoursBody.expected)
            }
        }
    }
}

/// `{"start": "22:00", "end": "07:00"}`: quiet hours on the wall clock of each alert's place.
struct QuietHoursBody: Codable {
    let start: String
    let end: String

    /// What a client is told when `quiet_hours` is not an object.
    static let expected = #"field 'quiet_hours' must be an object with start and end, HH:MM ({"start": "22:00", "end": "07:00"}), or null"#

    enum CodingKeys: String, CodingKey, CaseIterable {
        case start, end
    }
}

/// The body of `POST /v1/devices/{token}/subscriptions`.
struct SubscriptionBody: RequestBody {
    let latitude: FlexibleNumber
    let longitude: FlexibleNumber
    let name: String
    let unit: String?
    let settings: SettingsBody?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case latitude, longitude, name, unit, settings
    }

    static let fields = JSONFields.keys(CodingKeys.self, nested: ["settings": .keys(SettingsBody.CodingKeys.self)])
}

/// Per-subscription alert settings as sent by clients (thresholds in °C; the delivery window
/// as `HH:MM` on the place's wall clock).
struct SettingsBody: Codable {
    var rule: String?
    var frostRiskC: Double?
    var freezeC: Double?
    var hardFreezeC: Double?
    var allClear: Bool?
    var notifyAfter: String?
    var notifyBefore: String?
    /// The chance of frost (0…1) a level is alerted at when the server has ensembles.
    var minProbability: Double?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case rule
        case frostRiskC = "frost_risk_c"
        case freezeC = "freeze_c"
        case hardFreezeC = "hard_freeze_c"
        case allClear = "all_clear"
        case notifyAfter = "notify_after"
        case notifyBefore = "notify_before"
        case minProbability = "min_probability"
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
        let stored = subscription.settings
        settings = SettingsBody(
            rule: stored.rule, frostRiskC: stored.frostRiskC, freezeC: stored.freezeC, hardFreezeC: stored.hardFreezeC,
            allClear: stored.allClear, notifyAfter: stored.window?.after, notifyBefore: stored.window?.before,
            minProbability: stored.minProbability)
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
    /// Always present; `null` when none are set.
    let quietHours: QuietHoursBody?
    let hardFreezeBreaksQuietHours: Bool
    /// `pending` until a gateway accepted the device's verification push, then `verified`.
    let verification: DeviceVerification
    /// A browser's: the push service its endpoint is at (never the endpoint's path or keys).
    let endpointOrigin: String?

    enum CodingKeys: String, CodingKey {
        case token, platform, app, topic, environment, locale, verification
        case deviceID = "device_id"
        case endpointOrigin = "endpoint_origin"
        case createdAt = "created_at"
        case registeredAt = "registered_at"
        case quietHours = "quiet_hours"
        case hardFreezeBreaksQuietHours = "hard_freeze_breaks_quiet_hours"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(token, forKey: .token)
        if endpointOrigin != nil { try container.encode(token, forKey: .deviceID) }
        try container.encode(platform, forKey: .platform)
        try container.encodeIfPresent(endpointOrigin, forKey: .endpointOrigin)
        try container.encodeIfPresent(app, forKey: .app)
        try container.encodeIfPresent(topic, forKey: .topic)
        try container.encodeIfPresent(environment, forKey: .environment)
        try container.encodeIfPresent(locale, forKey: .locale)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(registeredAt, forKey: .registeredAt)
        try container.encode(quietHours, forKey: .quietHours)
        try container.encode(hardFreezeBreaksQuietHours, forKey: .hardFreezeBreaksQuietHours)
        try container.encode(verification, forKey: .verification)
    }

    /// `verificationRequired` false: every device counts as verified.
    init(_ device: Device, verificationRequired: Bool) {
        token = device.token.value
        platform = device.platform.rawValue
        app = device.app
        topic = device.app
        environment = device.environment?.rawValue
        locale = device.locale
        createdAt = Timestamp.iso8601(device.createdAt)
        registeredAt = Timestamp.iso8601(device.registeredAt)
        quietHours = device.quietHours.map { QuietHoursBody(start: $0.start, end: $0.end) }
        hardFreezeBreaksQuietHours = device.hardFreezeBreaksQuietHours
        verification = DeviceVerification(verifiedAt: device.verifiedAt, required: verificationRequired)
        endpointOrigin = device.webPush?.endpoint.origin
    }
}

enum Timestamp {
    /// RFC 3339 UTC, e.g. `2026-11-21T19:43:00Z`.
    static func iso8601(_ epochSeconds: Int64) -> String {
        Date(timeIntervalSince1970: TimeInterval(epochSeconds)).formatted(.iso8601)
    }
}
