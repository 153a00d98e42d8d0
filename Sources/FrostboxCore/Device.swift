/// A registered device: its token and the optional app facts it told us.
public struct Device: Sendable, Hashable {
    public var token: DeviceToken
    /// Which gateway its pushes go through.
    public var platform: DevicePlatform
    /// The app's bundle id (iOS) or package name (Android); nil means the platform's
    /// configured default app.
    public var app: String?
    /// iOS only; nil means the app's configured environment.
    public var environment: PushEnvironment?
    /// BCP 47 locale, e.g. `fi-FI`, for localised alerts.
    public var locale: String?
    /// Epoch seconds of the first registration.
    public var createdAt: Int64
    /// Epoch seconds of the latest registration (a gateway's word that a token died earlier does not prune a device registered since).
    public var registeredAt: Int64
    /// When ordinary alerts wait, on the wall clock of each alert's place (nil: never).
    public var quietHours: QuietHours?
    /// Whether a hard-freeze alert goes out inside quiet hours (time-sensitive).
    public var hardFreezeBreaksQuietHours: Bool = false
    /// When a gateway accepted the device's verification push (epoch seconds); nil while
    /// pending (see `DeviceVerification`).
    public var verifiedAt: Int64?
    /// A browser's push subscription (web devices only).
    public var webPush: WebPushSubscription?

    public init(
        token: DeviceToken, platform: DevicePlatform = .ios, app: String? = nil, environment: PushEnvironment? = nil,
        locale: String? = nil, createdAt: Int64, registeredAt: Int64
    ) {
        self.token = token
        self.platform = platform
        self.app = app
        self.environment = environment
        self.locale = locale
        self.createdAt = createdAt
        self.registeredAt = registeredAt
    }
}

/// What a client may say about its device when registering.
public struct DeviceRegistration: Sendable, Hashable {
    public var token: DeviceToken
    public var platform: DevicePlatform
    public var app: String?
    public var environment: PushEnvironment?
    public var locale: String?
    /// A change to the device's quiet hours; nil keeps what is stored.
    public var quietHours: QuietHoursUpdate?
    /// A new value of `Device.hardFreezeBreaksQuietHours`; nil keeps what is stored.
    public var hardFreezeBreaksQuietHours: Bool?
    /// A browser's push subscription: what a web device is registered by
    /// (`SubscriptionStore.registerWebPush`); nil for the other platforms.
    public var webPush: WebPushSubscription?

    /// `platform` nil: the one the token's form says (`DeviceToken.formPlatform`).
    public init(
        token: DeviceToken, platform: DevicePlatform? = nil, app: String? = nil, environment: PushEnvironment? = nil, locale: String? = nil
    ) {
        self.token = token
        self.platform = platform ?? token.formPlatform
        self.app = app
        self.environment = environment
        self.locale = locale
    }
}

/// What a registration does to a device's quiet hours.
public enum QuietHoursUpdate: Sendable, Hashable {
    case set(QuietHours)
    case clear

    /// The stored start and end minutes after the update (nil, nil once cleared).
    public var minutes: (start: Int64?, end: Int64?) {
        switch self {
        case .set(let quiet): (Int64(quiet.startMinute), Int64(quiet.endMinute))
        case .clear: (nil, nil)
        }
    }
}
