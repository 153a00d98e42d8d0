/// The platform a device's app runs on, which decides the gateway its pushes go through:
/// Apple's for `ios`, Google's for `android`, the browser's own push service for `web`.
public enum DevicePlatform: String, Sendable, Hashable, Codable, CaseIterable, CustomStringConvertible {
    case ios
    case android
    /// A browser's Web Push subscription (RFC 8030).
    case web

    public var description: String { rawValue }
}

/// Which delivery environment an iOS device's token belongs to (the gateway's production or
/// sandbox gateway). Android devices have one environment and leave it nil.
public enum PushEnvironment: String, Sendable, Codable, CaseIterable {
    case production
    case sandbox
}

/// How urgently a push is delivered: `immediate` now, `throttled` when the device chooses,
/// to save power. The raw values are the stored ones.
public enum PushPriority: Int, Sendable, Hashable, Codable {
    case immediate = 10
    case throttled = 5
}

/// How strongly an alert may interrupt: `passive` (no sound or wake), `active` (the
/// default), `timeSensitive` (through Focus modes, for alerts that need acting on now).
public enum InterruptionLevel: String, Sendable, Hashable, Codable {
    case passive
    case active
    case timeSensitive = "time-sensitive"
}

/// Frostbox's own data on an alert, so the app can show details without parsing text.
public struct FrostData: Sendable, Hashable {
    public var box: String
    public var night: String
    public var level: String
    public var minimumC: Double?
    /// The chance of the level's frost as a whole percent, when the alert is by probability (issue #47).
    public var probability: Int?

    public init(box: String, night: String, level: String, minimumC: Double?, probability: Int? = nil) {
        self.box = box
        self.night = night
        self.level = level
        self.minimumC = minimumC
        self.probability = probability
    }
}

extension FrostData {
    /// The frost data as text fields, for wires whose data is a string map (each adapter puts
    /// them in its own payload): `box`, `night`, `level`, and `minimum_c` and `probability` when
    /// known (a whole number without a fraction: `-3`, not `-3.0`).
    public var textFields: [String: String] {
        var fields = ["box": box, "night": night, "level": level]
        if let minimumC {
            fields["minimum_c"] = minimumC == minimumC.rounded() && abs(minimumC) < 1e15 ? String(Int64(minimumC)) : "\(minimumC)"
        }
        if let probability { fields["probability"] = String(probability) }
        return fields
    }
}

/// What an alert says, decided once by the core and rendered by each gateway's adapter for
/// its wire: the English text, localisation keys with their arguments (so the app can
/// translate), sound, grouping, how strongly it may interrupt, and the frost data.
public struct AlertContent: Sendable, Hashable {
    public var title: String?
    public var body: String?
    public var titleLocKey: String?
    public var titleLocArgs: [String]?
    public var bodyLocKey: String?
    public var bodyLocArgs: [String]?
    /// `default` for the platform's alert sound; nil for none.
    public var sound: String?
    /// Alerts with the same group are shown together.
    public var group: String?
    public var interruption: InterruptionLevel?
    public var frost: FrostData?

    public init(
        title: String? = nil, body: String? = nil, titleLocKey: String? = nil, titleLocArgs: [String]? = nil, bodyLocKey: String? = nil,
        bodyLocArgs: [String]? = nil, sound: String? = nil, group: String? = nil, interruption: InterruptionLevel? = nil, frost: FrostData? = nil
    ) {
        self.title = title
        self.body = body
        self.titleLocKey = titleLocKey
        self.titleLocArgs = titleLocArgs
        self.bodyLocKey = bodyLocKey
        self.bodyLocArgs = bodyLocArgs
        self.sound = sound
        self.group = group
        self.interruption = interruption
        self.frost = frost
    }
}

/// What a push is for.
public enum PushPurpose: String, Sendable, Hashable, Codable {
    /// An alert the person sees.
    case alert
    /// Proof that a token reaches an installed app: each adapter sends the quietest request
    /// its gateway still checks the token with (no content is rendered; `content` is
    /// ignored). Browsers show every push (`userVisibleOnly`), so a web device's is a visible
    /// confirmation that alerts are on.
    case verification
}

/// One alert to one device, with everything decided up front so that a resend after a crash
/// is the same request, byte for byte, on either platform.
public struct PushNotification: Sendable, Hashable {
    public var token: DeviceToken
    public var platform: DevicePlatform
    /// The app: its bundle id on iOS, its package name on Android; nil means
    /// the platform's configured default app.
    public var app: String?
    /// iOS only; nil means the app's configured environment.
    public var environment: PushEnvironment?
    /// A UUID (canonical text) generated once per alert and kept with it; each adapter puts
    /// it where its gateway keeps a message's id.
    public var messageID: String
    /// Replaces an earlier alert with the same id on the device; at most 64 bytes.
    public var collapseID: String?
    public var priority: PushPriority
    /// UTC epoch seconds after which the alert is worthless (0: deliver now or never).
    public var expiration: Int64?
    public var content: AlertContent
    /// An alert, or a verification push (which shows nothing).
    public var purpose: PushPurpose
    /// Web only: where the browser's push service takes the message and the keys it is
    /// encrypted to, filled in by the Web Push sender from the device's store (nil before).
    public var webPush: WebPushSubscription?

    public init(
        token: DeviceToken, platform: DevicePlatform = .ios, app: String? = nil, environment: PushEnvironment? = nil, messageID: String,
        collapseID: String? = nil, priority: PushPriority = .immediate, expiration: Int64? = nil, content: AlertContent,
        purpose: PushPurpose = .alert
    ) {
        self.token = token
        self.platform = platform
        self.app = app
        self.environment = environment
        self.messageID = messageID
        self.collapseID = collapseID
        self.priority = priority
        self.expiration = expiration
        self.content = content
        self.purpose = purpose
    }

    /// A verification push to a device: throttled, no collapse id, no content, worthless after
    /// `expiration`.
    public static func verification(
        token: DeviceToken, platform: DevicePlatform, app: String?, environment: PushEnvironment?, messageID: String, expiration: Int64
    ) -> PushNotification {
        PushNotification(
            token: token, platform: platform, app: app, environment: environment, messageID: messageID, priority: .throttled,
            expiration: expiration, content: AlertContent(), purpose: .verification)
    }

    /// The platform and app the push goes to ("" for the platform's default app): the unit a
    /// refused credential stops.
    public var destination: PushDestination { PushDestination(platform: platform, app: app ?? "") }
}

/// A platform's app, "" being the platform's configured default.
public struct PushDestination: Sendable, Hashable, CustomStringConvertible {
    public var platform: DevicePlatform
    public var app: String

    public init(platform: DevicePlatform, app: String) {
        self.platform = platform
        self.app = app
    }

    public var description: String { "\(platform)/\(app.isEmpty ? "default" : app)" }
}

/// What became of a push. Temporary failures have already been retried by the sender.
public enum PushOutcome: Sendable, Hashable {
    /// Accepted by the gateway, with the message id it answered.
    case delivered(messageID: String)
    /// The token is dead: the gateway no longer knows it, or refuses it as malformed.
    /// `unregisteredAtMilliseconds` is when the gateway says it died (UTC epoch ms), if it says.
    case invalidToken(reason: String, unregisteredAtMilliseconds: Int64?)
    /// Refused for good (a bad request, too large, another sender's token); the reason is kept.
    case permanentFailure(status: Int, reason: String)
    /// The gateway refused our credentials: sending for that app is stopped.
    case authFailure(reason: String)
    /// Rate limits, server errors, lost connections and timeouts that outlived the sender's retries.
    case temporaryFailure(reason: String)

    /// The latest registration time (epoch seconds) at which a device whose push got this
    /// outcome at `sentAt` is pruned: a gateway that says when the token died prunes only a
    /// device not registered again since; one that does not (or a refusal) prunes a device
    /// not registered again since the send. Alerts
    /// and verification pushes follow this one rule, so a reinstalled app keeps its token.
    public func pruneCutoff(sentAt: Int64) -> Int64 {
        if case .invalidToken(_, let unregisteredAtMilliseconds?) = self { return unregisteredAtMilliseconds / 1_000 }
        return sentAt
    }

    /// The reason of a push refused because its platform has no push app (the log-only
    /// sink's answer to a verification push).
    public static let notConfiguredReason = "PlatformNotConfigured"

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

/// The push capability, for every platform: takes a batch of pushes in one call and reports
/// what became of each as the answers come back.
public protocol PushSender: Sendable {
    /// Sends every push of `batch`, retrying temporary failures within the sender's own
    /// limits. The returned sequence yields exactly one outcome per push (by its index in
    /// `batch`), in the order they complete, and then ends.
    func send(_ batch: [PushNotification]) -> PushOutcomes
}

extension PushSender {
    /// Sends one push and waits for its outcome.
    public func send(_ notification: PushNotification) async -> PushOutcome {
        for await result in send([notification]) { return result.outcome }
        return .temporaryFailure(reason: "no outcome")
    }
}
