/// Which APNs environment a device's token belongs to.
public enum APNsEnvironment: String, Sendable, Codable, CaseIterable {
    case production
    case sandbox
}

/// A registered device: its token and the optional app facts it told us.
public struct Device: Sendable, Hashable {
    public var token: DeviceToken
    /// The app's bundle id (APNs topic); nil means the configured default app.
    public var topic: String?
    /// nil means the app's configured environment.
    public var environment: APNsEnvironment?
    /// BCP 47 locale, e.g. `fi-FI`, for localised alerts.
    public var locale: String?
    /// Epoch seconds of the first registration.
    public var createdAt: Int64
    /// Epoch seconds of the latest registration (used against APNs 410 timestamps).
    public var registeredAt: Int64

    public init(
        token: DeviceToken, topic: String? = nil, environment: APNsEnvironment? = nil,
        locale: String? = nil, createdAt: Int64, registeredAt: Int64
    ) {
        self.token = token
        self.topic = topic
        self.environment = environment
        self.locale = locale
        self.createdAt = createdAt
        self.registeredAt = registeredAt
    }
}

/// What a client may say about its device when registering.
public struct DeviceRegistration: Sendable, Hashable {
    public var token: DeviceToken
    public var topic: String?
    public var environment: APNsEnvironment?
    public var locale: String?

    public init(token: DeviceToken, topic: String? = nil, environment: APNsEnvironment? = nil, locale: String? = nil) {
        self.token = token
        self.topic = topic
        self.environment = environment
        self.locale = locale
    }
}
