// PROVISIONAL: a copy of the platform-neutral, batched push port that the core is being
// redesigned to (issue #24), so that this adapter builds on a main that does not have it yet.
// At the merge this file is deleted and the adapter's files (and its tests) import
// FrostboxCore instead; nothing here is FCM's, nothing else in the target defines a port type.

/// Which push service reaches a device.
public enum DevicePlatform: String, Sendable, Hashable, CaseIterable {
    case ios, android
}

/// How urgently a push is delivered.
public enum PushPriority: Int, Sendable, Hashable {
    case immediate = 10
    case throttled = 5
}

/// How strongly an alert may interrupt.
public enum InterruptionLevel: String, Sendable, Hashable {
    case passive, active
    case timeSensitive = "time-sensitive"
}

/// A device's push token (provisional: the real one validates per platform).
public struct DeviceToken: Sendable, Hashable, CustomStringConvertible {
    /// The token as the push service knows it.
    public let value: String

    /// For values read back from storage.
    public init(trustedValue: String) { self.value = trustedValue }

    /// The form safe for logs: first 6 and last 4 characters.
    public var redacted: String { "\(value.prefix(6))…\(value.suffix(4))" }

    public var description: String { redacted }
}

/// Frostbox's data for the app.
public struct FrostData: Sendable, Hashable {
    public var box: String
    public var night: String
    public var level: String
    public var minimumC: Double?

    public init(box: String, night: String, level: String, minimumC: Double?) {
        self.box = box
        self.night = night
        self.level = level
        self.minimumC = minimumC
    }
}

/// What an alert says, before any platform renders it.
public struct AlertContent: Sendable, Hashable {
    public var title: String?
    public var body: String?
    public var titleLocKey: String?
    public var titleLocArgs: [String]?
    public var bodyLocKey: String?
    public var bodyLocArgs: [String]?
    public var sound: String?
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

/// One alert to one device.
public struct PushNotification: Sendable, Hashable {
    public var token: DeviceToken
    public var platform: DevicePlatform
    public var app: String?
    public var messageID: String
    public var collapseID: String?
    public var priority: PushPriority
    public var expiration: Int64?
    public var content: AlertContent

    public init(
        token: DeviceToken, platform: DevicePlatform, app: String? = nil, messageID: String, collapseID: String? = nil,
        priority: PushPriority = .immediate, expiration: Int64? = nil, content: AlertContent
    ) {
        self.token = token
        self.platform = platform
        self.app = app
        self.messageID = messageID
        self.collapseID = collapseID
        self.priority = priority
        self.expiration = expiration
        self.content = content
    }
}

/// What became of a push.
public enum PushOutcome: Sendable, Hashable {
    case delivered(messageID: String)
    case invalidToken(reason: String, unregisteredAtMilliseconds: Int64?)
    case permanentFailure(status: Int, reason: String)
    case authFailure(reason: String)
    case temporaryFailure(reason: String)
}

/// The batched push port.
public protocol PushSender: Sendable {
    /// Sends a chunk; exactly one outcome per message comes back, in any order.
    func send(_ batch: [PushNotification]) -> PushOutcomes
}

/// The outcomes of one batch, as they complete.
public struct PushOutcomes: AsyncSequence, Sendable {
    public typealias Element = (index: Int, outcome: PushOutcome)

    let stream: AsyncStream<Element>

    public init(_ stream: AsyncStream<Element>) { self.stream = stream }

    public func makeAsyncIterator() -> AsyncStream<Element>.Iterator { stream.makeAsyncIterator() }
}
