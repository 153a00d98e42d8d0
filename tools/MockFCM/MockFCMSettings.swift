import Foundation
import _CryptoExtras

/// How the FCM double behaves: where it listens, which service accounts it knows, and the
/// faults it injects.
public struct MockFCMSettings: Sendable {
    /// Address to bind.
    public var host = "127.0.0.1"
    /// Port to bind; 0 picks a free one (read it back from `MockFCMServer.port`).
    public var port = 0
    /// Directory the self-signed certificate (`mock-fcm.crt`) is written to; a fresh
    /// temporary directory when nil.
    public var certificateDirectory: String?
    /// Service accounts the token endpoint knows, by `client_email`.
    public var accounts: [String: KnownAccount] = [:]
    /// Lifetime of the access tokens it hands out (`expires_in`), seconds.
    public var accessTokenLifetime: Int64 = 3600
    /// `Retry-After` seconds of the quota fault.
    public var retryAfterSeconds = 1
    /// How long a `HANG` request is held before the double gives up on it (it is released
    /// earlier by `stop()`).
    public var hangLimit: Duration = .seconds(120)
    /// Latency added before each `messages:send` answer.
    public var latency: Duration = .zero
    /// Keep accepted deliveries in memory (turn off for long benchmarks).
    public var keepDeliveries = true
    /// Append each accepted delivery to this file as a JSON line, as mock-apns' `--deliveries` does.
    public var deliveriesPath: String?
    /// Accept `messages:send` without a valid access token (a sink for benchmarks).
    public var requireAuthentication = true
    /// UTC epoch seconds, for assertion and token ages; injectable so tests can move time.
    public var clock: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }

    public init() {}

    /// A service account: its project and the public half of its key.
    public struct KnownAccount: Sendable {
        public var projectID: String
        public var publicKey: _RSA.Signing.PublicKey

        public init(projectID: String, publicKey: _RSA.Signing.PublicKey) {
            self.projectID = projectID
            self.publicKey = publicKey
        }
    }
}

/// Faults chosen by the start of the registration token. See tools/README.md.
public enum MockFCMTokenFault: String, CaseIterable, Sendable {
    /// `UNREG…` → 404 NOT_FOUND, errorCode UNREGISTERED.
    case unregistered = "UNREG"
    /// `BADTOKEN…` → 400 INVALID_ARGUMENT "The registration token is not a valid FCM registration token".
    case invalidToken = "BADTOKEN"
    /// `MISMATCH…` → 403 PERMISSION_DENIED, errorCode SENDER_ID_MISMATCH.
    case senderIDMismatch = "MISMATCH"
    /// `QUOTA…` → 429 RESOURCE_EXHAUSTED, errorCode QUOTA_EXCEEDED, with `Retry-After`.
    case quotaExceeded = "QUOTA"
    /// `QUOTAONCE…` → the quota fault the first time an `alert_id` is seen, then accepted.
    case quotaOnce = "QUOTAONCE"
    /// `UNAVAIL…` → 503 UNAVAILABLE.
    case unavailable = "UNAVAIL"
    /// `FLAKY…` → 503 UNAVAILABLE the first time an `alert_id` is seen, then accepted.
    case flaky = "FLAKY"
    /// `INTERNAL…` → 500 INTERNAL.
    case internalError = "INTERNAL"
    /// `EXPIRED…` → 401 UNAUTHENTICATED whatever the access token.
    case unauthenticated = "EXPIRED"
    /// `HANG…` → no answer (held until `hangLimit` or `stop()`).
    case hang = "HANG"
    /// `DROP…` → the connection is closed at once, no answer, nothing recorded but the
    /// rejection `ConnectionDropped` (a message that makes the server drop the connection, and
    /// every request in flight on it with it).
    case connectionDrop = "DROP"

    /// The fault a token asks for, if any (the longest matching prefix).
    public static func of(token: String) -> MockFCMTokenFault? {
        allCases.filter { token.hasPrefix($0.rawValue) }.max { $0.rawValue.count < $1.rawValue.count }
    }
}

/// A failure of the double itself (not an FCM answer).
public struct MockFCMError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
