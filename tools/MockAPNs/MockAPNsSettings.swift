import Crypto
import Foundation
import NIOSSL

/// How the APNs double behaves: where it listens, whom it trusts, and which faults it injects.
public struct MockAPNsSettings: Sendable {
    /// Address to bind.
    public var host = "127.0.0.1"
    /// Port to bind; 0 picks a free one (read it back from `MockAPNsServer.port`).
    public var port = 0
    /// Directory the self-signed server certificate (`mock-apns.crt`) and its key are written
    /// to; clients trust `certificatePath`. A fresh temporary directory when nil.
    public var certificateDirectory: String?
    /// Provider-token keys APNs knows: key id → team id and public key.
    public var signingKeys: [String: TrustedKey] = [:]
    /// TLS client certificates accepted for certificate-based auth, with the topics each may
    /// push to.
    public var clientCertificates: [TrustedCertificate] = []
    /// Topics the tokens may push to; empty means any topic.
    public var topics: Set<String> = []
    /// The device tokens APNs knows (lower-case hex); any other well-formed token is answered
    /// 400 BadDeviceToken, as APNs answers a token no device of the app ever had. Nil: every
    /// token is known (faults by prefix aside).
    public var knownTokens: Set<String>?
    /// Accept requests without any provider authentication (benchmark against a sink-like peer).
    public var requireAuthentication = true
    /// Oldest provider token accepted, seconds (APNs: one hour).
    public var maximumTokenAge: Int64 = 3600
    /// Answer `429 TooManyProviderTokenUpdates` when a key's token changes on one connection
    /// within this many seconds of the previous change (APNs: 20 minutes); nil disables it.
    public var minimumTokenUpdateInterval: Int64? = 20 * 60
    /// UTC epoch seconds, for token ages and 410 timestamps; injectable so tests can move time.
    public var clock: @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) }

    /// Faults.
    /// Send GOAWAY after this many requests on a connection (the last one is still answered;
    /// later ones are refused unprocessed), then close the connection once it is drained.
    public var goAwayAfterRequests: Int?
    /// Close a connection abruptly (no GOAWAY, no answer) when its request number N arrives;
    /// the requests answered before stay answered, the ones in flight get nothing.
    public var resetAfterRequests: Int?
    /// Fraction (0...1) of otherwise valid requests answered with `rateFaultStatus`.
    public var faultRate: Double = 0
    /// Status of rate faults: 429, 500 or 503.
    public var rateFaultStatus = 503
    /// Latency added before each answer.
    public var latency: Duration = .zero
    /// After answering this many requests on a connection, announce a new (lower)
    /// `SETTINGS_MAX_CONCURRENT_STREAMS`, as APNs does after a rejected push.
    public var lowerStreamLimit: (afterRequests: Int, to: Int)?
    /// Answer as soon as a request's headers arrive, before its body is read, then reset the
    /// stream with `NO_ERROR` (legal HTTP/2; nginx's `return` does it). The payload is not
    /// validated and is recorded empty.
    public var answerBeforeBody = false
    /// On the first connection only: once this many requests arrived, stop reading from the
    /// socket and answer nothing more (a gateway that hangs; PINGs go unanswered too).
    public var stallAfterRequests: Int?
    /// `SETTINGS_MAX_CONCURRENT_STREAMS` the double announces (APNs: up to 1,000).
    public var maximumConcurrentStreams = 1000
    /// Event-loop threads.
    public var threads = 1
    /// A JSON-lines file every accepted delivery is appended to, if any.
    public var deliveriesPath: String?
    /// Keep accepted deliveries in memory for `deliveries()` (turn off for long benchmarks).
    public var keepDeliveries = true

    public init() {}

    /// A provider-token key: the team it belongs to and its public half.
    public struct TrustedKey: Sendable {
        public var teamID: String
        public var publicKey: P256.Signing.PublicKey

        public init(teamID: String, publicKey: P256.Signing.PublicKey) {
            self.teamID = teamID
            self.publicKey = publicKey
        }
    }

    /// A client certificate and the topics (bundle ids) it may push to.
    public struct TrustedCertificate: Sendable {
        public var certificate: NIOSSLCertificate
        public var topics: Set<String>

        public init(certificate: NIOSSLCertificate, topics: Set<String>) {
            self.certificate = certificate
            self.topics = topics
        }
    }
}

/// The faults chosen by the first hex digits of the device token. See tools/README.md.
public enum MockAPNsTokenFault: String, CaseIterable, Sendable {
    /// `0bad…` → 400 BadDeviceToken.
    case badDeviceToken = "0bad"
    /// `0400…` → 400 DeviceTokenNotForTopic.
    case notForTopic = "0400"
    /// `0403…` → 403 Forbidden.
    case forbidden = "0403"
    /// `0410…` → 410 Unregistered, with `timestamp` (now, in milliseconds).
    case unregistered = "0410"
    /// `0413…` → 413 PayloadTooLarge.
    case payloadTooLarge = "0413"
    /// `0429…` → 429 TooManyRequests.
    case tooManyRequests = "0429"
    /// `0500…` → 500 InternalServerError.
    case internalServerError = "0500"
    /// `0503…` → 503 ServiceUnavailable.
    case serviceUnavailable = "0503"
    /// `0f1a…` ("flaky") → 503 ServiceUnavailable the first time an apns-id is seen, then accepted.
    case flaky = "0f1a"
    /// `0dead…` → the connection is closed at once, no answer, nothing recorded.
    case connectionReset = "0dead"
    /// `05e7…` ("reset") → RST_STREAM(INTERNAL_ERROR) without an answer the first time an
    /// apns-id is seen, then accepted.
    case streamReset = "05e7"

    /// The fault a token asks for, if any.
    public static func of(token: Substring) -> MockAPNsTokenFault? {
        allCases.first { token.hasPrefix($0.rawValue) }
    }
}
