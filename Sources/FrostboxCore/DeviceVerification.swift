/// Whether a device has been proven real: a gateway accepted a verification push to its
/// token (a push the person never sees). Only verified devices cost forecasts: a box is
/// fetched once a device subscribing there is verified, and pending devices get no alerts.
/// With verification off (no push app configured, `devices.verify: false`) every device
/// counts as verified.
public enum DeviceVerification: String, Sendable, Hashable, Codable, CaseIterable {
    /// Registered, its verification push not yet accepted.
    case pending
    /// A gateway accepted its verification push.
    case verified

    /// The state of a device verified at `verifiedAt` (nil: never) when `required`.
    public init(verifiedAt: Int64?, required: Bool) {
        self = !required || verifiedAt != nil ? .verified : .pending
    }
}

/// A device waiting to be proven real, with what its verification push needs.
public struct PendingDevice: Sendable, Hashable {
    public var token: DeviceToken
    public var platform: DevicePlatform
    public var app: String?
    public var environment: PushEnvironment?
    /// Epoch seconds of the first registration.
    public var createdAt: Int64
    /// Epoch seconds of the latest registration.
    public var registeredAt: Int64

    public init(
        token: DeviceToken, platform: DevicePlatform, app: String? = nil, environment: PushEnvironment? = nil, createdAt: Int64,
        registeredAt: Int64
    ) {
        self.token = token
        self.platform = platform
        self.app = app
        self.environment = environment
        self.createdAt = createdAt
        self.registeredAt = registeredAt
    }

    /// Its verification push: throttled, no content, worthless after an hour.
    public func verificationPush(at now: Int64) -> PushNotification {
        .verification(
            token: token, platform: platform, app: app, environment: environment,
            messageID: token.verificationMessageID(createdAt: createdAt), expiration: now + 3_600)
    }
}

/// How many devices wait to be proven real, and what that leaves out.
public struct VerificationCounts: Sendable, Hashable, Codable {
    /// Devices still pending.
    public var pendingDevices: Int
    /// Subscribed boxes in which no device is verified (not fetched).
    public var boxesAwaitingVerification: Int

    public init(pendingDevices: Int = 0, boxesAwaitingVerification: Int = 0) {
        self.pendingDevices = pendingDevices
        self.boxesAwaitingVerification = boxesAwaitingVerification
    }
}

/// Where devices wait to be proven real. A device is pending from its first registration
/// (a subscription with an unknown token registers one) until `markVerified`; a rejected one
/// is removed with `NotifierStore.pruneDevice`. Every write is durable when it returns.
public protocol DeviceVerificationStore: Sendable {
    /// Pending devices whose token sorts after `after` (nil: from the first), by token, at
    /// most `limit`: the pages of a verification round.
    func pendingDevices(after: DeviceToken?, limit: Int) async throws -> [PendingDevice]

    /// Pending devices first registered before `createdBefore` (UTC epoch seconds), oldest
    /// first, at most `limit`.
    func pendingDevices(createdBefore: Int64, limit: Int) async throws -> [PendingDevice]

    /// Marks the devices of `tokens` still stored and pending verified at `now`.
    func markVerified(_ tokens: [DeviceToken], at now: Int64) async throws

    /// Deletes the devices still pending that were first registered before `createdBefore`,
    /// with everything stored about them; how many.
    @discardableResult
    func purgePendingDevices(createdBefore: Int64) async throws -> Int

    /// Pending devices and subscribed boxes without a verified device, counted now.
    func verificationCounts() async throws -> VerificationCounts
}

/// What one verification round did.
public struct VerificationTally: Sendable, Hashable {
    /// Devices whose verification push a gateway accepted.
    public var verified = 0
    /// Devices a gateway refused as not its app's (removed).
    public var rejected = 0
    /// Devices still pending: the push failed for a reason that says nothing about the token
    /// (a gateway down, refused credentials); tried again next run.
    public var waiting = 0
    /// Devices deleted for having stayed pending longer than `devices.pending_ttl`.
    public var expired = 0

    public init(verified: Int = 0, rejected: Int = 0, waiting: Int = 0, expired: Int = 0) {
        self.verified = verified
        self.rejected = rejected
        self.waiting = waiting
        self.expired = expired
    }

    /// Whether a verification outcome proves the device cannot be pushed to: the gateway no
    /// longer knows the token or refuses it as malformed (`invalidToken`), or a permanent
    /// failure with one of `removingReasons` (named by the composition root: a token of another
    /// app, a push that takes the gateway's connection down even sent alone).
    public static func rejects(_ outcome: PushOutcome, removingReasons: Set<String>) -> Bool {
        switch outcome {
        case .invalidToken: true
        case .permanentFailure(_, let reason): removingReasons.contains(reason)
        case .delivered, .authFailure, .temporaryFailure: false
        }
    }
}
