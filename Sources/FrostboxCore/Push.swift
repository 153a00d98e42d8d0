/// APNs push type (`apns-push-type`).
public enum PushType: String, Sendable, Hashable, Codable {
    case alert
    case background
}

/// APNs priority (`apns-priority`): 10 sends now, 5 lets the device save power.
public enum PushPriority: Int, Sendable, Hashable, Codable {
    case immediate = 10
    case throttled = 5
}

/// The `aps` dictionary of a push payload.
public struct APSPayload: Sendable, Hashable, Codable {
    /// The visible alert, with localisation keys so the app can translate.
    public struct Alert: Sendable, Hashable, Codable {
        public var title: String?
        public var body: String?
        public var titleLocKey: String?
        public var titleLocArgs: [String]?
        public var locKey: String?
        public var locArgs: [String]?

        /// The JSON key names (APNs'), used by every encoder of the payload.
        public enum CodingKeys: String, CodingKey {
            case title, body
            case titleLocKey = "title-loc-key"
            case titleLocArgs = "title-loc-args"
            case locKey = "loc-key"
            case locArgs = "loc-args"
        }

        public init(
            title: String? = nil, body: String? = nil, titleLocKey: String? = nil, titleLocArgs: [String]? = nil, locKey: String? = nil,
            locArgs: [String]? = nil
        ) {
            self.title = title
            self.body = body
            self.titleLocKey = titleLocKey
            self.titleLocArgs = titleLocArgs
            self.locKey = locKey
            self.locArgs = locArgs
        }
    }

    public var alert: Alert?
    public var sound: String?
    public var threadID: String?
    /// `passive`, `active`, `time-sensitive`, `critical`.
    public var interruptionLevel: String?
    public var contentAvailable: Int?

    /// The JSON key names (APNs'), used by every encoder of the payload.
    public enum CodingKeys: String, CodingKey {
        case alert, sound
        case threadID = "thread-id"
        case interruptionLevel = "interruption-level"
        case contentAvailable = "content-available"
    }

    public init(alert: Alert? = nil, sound: String? = nil, threadID: String? = nil, interruptionLevel: String? = nil, contentAvailable: Int? = nil) {
        self.alert = alert
        self.sound = sound
        self.threadID = threadID
        self.interruptionLevel = interruptionLevel
        self.contentAvailable = contentAvailable
    }
}

/// A push payload: `aps` plus Frostbox's own data for the app.
public struct PushPayload: Sendable, Hashable, Codable {
    /// Frostbox's custom data, so the app can show details without parsing text.
    public struct FrostData: Sendable, Hashable, Codable {
        public var box: String
        public var night: String
        public var level: String
        public var minimumC: Double?

        /// The JSON key names, used by every encoder of the payload.
        public enum CodingKeys: String, CodingKey {
            case box, night, level
            case minimumC = "minimum_c"
        }

        public init(box: String, night: String, level: String, minimumC: Double?) {
            self.box = box
            self.night = night
            self.level = level
            self.minimumC = minimumC
        }
    }

    public var aps: APSPayload
    public var frost: FrostData?

    /// The JSON key names, used by every encoder of the payload.
    public enum CodingKeys: String, CodingKey {
        case aps, frost
    }

    public init(aps: APSPayload, frost: FrostData? = nil) {
        self.aps = aps
        self.frost = frost
    }
}

/// One notification to one device, with every APNs header value decided up front so that a
/// resend after a crash is byte-for-byte the same request.
public struct PushNotification: Sendable, Hashable {
    public var token: DeviceToken
    /// The app's bundle id (`apns-topic`); nil means the configured default app.
    public var topic: String?
    /// nil means the app's configured environment.
    public var environment: APNsEnvironment?
    /// `apns-id`: a UUID (canonical text) generated once per alert and kept with it.
    public var apnsID: String
    /// `apns-collapse-id`, at most 64 bytes.
    public var collapseID: String?
    public var pushType: PushType
    public var priority: PushPriority
    /// `apns-expiration`, UTC epoch seconds (0: deliver now or never).
    public var expiration: Int64?
    public var payload: PushPayload

    public init(
        token: DeviceToken, topic: String? = nil, environment: APNsEnvironment? = nil, apnsID: String, collapseID: String? = nil, pushType: PushType = .alert,
        priority: PushPriority = .immediate, expiration: Int64? = nil, payload: PushPayload
    ) {
        self.token = token
        self.topic = topic
        self.environment = environment
        self.apnsID = apnsID
        self.collapseID = collapseID
        self.pushType = pushType
        self.priority = priority
        self.expiration = expiration
        self.payload = payload
    }
}

/// What became of a push. Temporary failures have already been retried by the sender.
public enum PushOutcome: Sendable, Hashable {
    /// 200: accepted by APNs, with the `apns-id` it answered.
    case delivered(apnsID: String)
    /// 400 BadDeviceToken, 410 Unregistered/ExpiredToken: the token is dead. `unregisteredAtMilliseconds`
    /// is the 410 timestamp (UTC epoch milliseconds) when APNs gave one.
    case invalidToken(reason: String, unregisteredAtMilliseconds: Int64?)
    /// Other 400s, 413: not retried; the reason is kept.
    case permanentFailure(status: Int, reason: String)
    /// 403 other than an expired provider token: sending for that app is stopped.
    case authFailure(reason: String)
    /// 429, 5xx, connection errors, timeouts that outlived the sender's retries.
    case temporaryFailure(reason: String)

    /// A short class name for metrics and run summaries.
    public var failureClass: String {
        switch self {
        case .delivered: "delivered"
        case .invalidToken: "invalid-token"
        case .permanentFailure: "permanent"
        case .authFailure: "auth"
        case .temporaryFailure: "temporary"
        }
    }
}

/// The push capability: delivers one notification and says what became of it.
public protocol PushSender: Sendable {
    /// Sends `notification`, retrying temporary failures within the sender's own limits.
    func send(_ notification: PushNotification) async -> PushOutcome
}
