import FrostboxCore
import GRDB

/// Row of the `device` table.
struct DeviceRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "device"

    var token: String
    var platform: String
    var app: String?
    var environment: String?
    var locale: String?
    var createdAt: Int64
    var registeredAt: Int64
    var quietStart: Int64?
    var quietEnd: Int64?
    var hardFreezeBreaksQuiet: Bool
    var verifiedAt: Int64?
    var webEndpoint: String?
    var webP256dh: String?
    var webAuth: String?

    enum CodingKeys: String, CodingKey {
        case token, platform, app, environment, locale
        case createdAt = "created_at"
        case registeredAt = "registered_at"
        case quietStart = "quiet_start"
        case quietEnd = "quiet_end"
        case hardFreezeBreaksQuiet = "hard_freeze_breaks_quiet"
        case verifiedAt = "verified_at"
        case webEndpoint = "web_endpoint"
        case webP256dh = "web_p256dh"
        case webAuth = "web_auth"
    }

    init(_ registration: DeviceRegistration, at now: Int64) {
        token = registration.token.value
        platform = registration.platform.rawValue
        app = registration.app
        environment = registration.environment?.rawValue
        locale = registration.locale
        createdAt = now
        registeredAt = now
        let quiet = registration.quietHours?.minutes
        quietStart = quiet?.start
        quietEnd = quiet?.end
        hardFreezeBreaksQuiet = registration.hardFreezeBreaksQuietHours ?? false
        verifiedAt = nil
        webEndpoint = registration.webPush?.endpoint.url
        webP256dh = registration.webPush?.p256dh
        webAuth = registration.webPush?.auth
    }

    var device: Device {
        let token = DeviceToken(trusted: token)
        var device = Device(
            token: token, platform: DevicePlatform(rawValue: platform) ?? token.formPlatform, app: app,
            environment: environment.flatMap(PushEnvironment.init(rawValue:)),
            locale: locale, createdAt: createdAt, registeredAt: registeredAt)
        device.quietHours = GRDBNotifierStore.quietHours(quietStart, quietEnd)
        device.hardFreezeBreaksQuietHours = hardFreezeBreaksQuiet
        device.verifiedAt = verifiedAt
        if let webEndpoint, let webP256dh, let webAuth {
            device.webPush = WebPushSubscription(trustedEndpoint: webEndpoint, p256dh: webP256dh, auth: webAuth)
        }
        return device
    }
}
