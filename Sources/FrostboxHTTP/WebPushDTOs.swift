import FrostboxCore

/// The body of `POST /v1/devices`: a browser's push subscription as `PushSubscription.toJSON()`
/// gives it, with `"platform": "web"` and the facts `PUT /v1/devices/{token}` takes.
struct WebDeviceBody: RequestBody {
    static let fields = JSONFields.keys(
        CodingKeys.self,
        nested: [
            "subscription": .keys(PushSubscriptionJSON.CodingKeys.self, nested: ["keys": .keys(PushSubscriptionJSON.Keys.CodingKeys.self)]),
            "quiet_hours": .keys(QuietHoursBody.CodingKeys.self),
        ])

    /// Must be `web`: the other platforms register with `PUT /v1/devices/{token}`.
    let platform: String
    let subscription: PushSubscriptionJSON
    let app: String?
    let locale: String?
    let quietHours: DeviceBody.QuietHoursField
    let hardFreezeBreaksQuietHours: Bool?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case platform, subscription, app, locale
        case quietHours = "quiet_hours"
        case hardFreezeBreaksQuietHours = "hard_freeze_breaks_quiet_hours"
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        platform = try container.decode(String.self, forKey: .platform)
        subscription = try container.decode(PushSubscriptionJSON.self, forKey: .subscription)
        app = try container.decodeIfPresent(String.self, forKey: .app)
        locale = try container.decodeIfPresent(String.self, forKey: .locale)
        hardFreezeBreaksQuietHours = try container.decodeIfPresent(Bool.self, forKey: .hardFreezeBreaksQuietHours)
        // The same facts as `PUT /v1/devices/{token}`, read by its body.
        let facts = try DeviceBody(from: decoder)
        quietHours = facts.quietHours
    }

    /// The body's facts as the device body `WireValidation.facts` reads.
    var deviceBody: DeviceBody {
        DeviceBody(
            platform: platform, app: app, topic: nil, environment: nil, locale: locale, quietHours: quietHours,
            hardFreezeBreaksQuietHours: hardFreezeBreaksQuietHours)
    }
}

/// `PushSubscription.toJSON()`: `{"endpoint": "https://…", "expirationTime": null, "keys": {"p256dh": "…", "auth": "…"}}`.
struct PushSubscriptionJSON: Decodable {
    let endpoint: String
    /// Epoch milliseconds after which the browser drops the subscription, or null (kept for
    /// the browser's sake; the push service's 404/410 is what prunes a device).
    let expirationTime: Double?
    let keys: Keys

    enum CodingKeys: String, CodingKey, CaseIterable {
        case endpoint, expirationTime, keys
    }

    /// The subscription's keys.
    struct Keys: Decodable {
        let p256dh: String
        let auth: String

        enum CodingKeys: String, CodingKey, CaseIterable {
            case p256dh, auth
        }
    }
}

/// `GET /v1/web-push/public-key`: the VAPID public key a page passes to
/// `pushManager.subscribe` as `applicationServerKey`.
struct WebPushPublicKeyResponse: Encodable {
    let app: String
    let publicKey: String

    enum CodingKeys: String, CodingKey {
        case app
        case publicKey = "public_key"
    }
}
