import Foundation
import Synchronization

/// One message the double accepted (answered 200).
public struct MockFCMDelivery: Sendable, Hashable, Codable {
    /// The `name` answered.
    public var name: String
    public var project: String
    public var token: String
    /// `data.alert_id`, if sent.
    public var alertID: String?
    public var collapseKey: String?
    public var ttl: String?
    public var priority: String?
    /// The request body exactly as received.
    public var body: String
    /// The service account whose access token authorised it (nil without authentication).
    public var account: String?
}

/// What the double has seen so far (`GET /admin/counters` answers it as JSON).
public struct MockFCMCounters: Sendable, Hashable, Codable {
    /// Token requests received, and those answered with an access token.
    public var tokenRequests = 0
    public var tokensIssued = 0
    /// `messages:send` requests received.
    public var sendRequests = 0
    /// Requests answered 200.
    public var delivered = 0
    /// Error answers by FCM error code (or status).
    public var rejected: [String: Int] = [:]
    /// Distinct HTTP/2 connections (or HTTP/1 connections) requests came on.
    public var connections = 0
    /// Most `messages:send` requests in progress at once.
    public var peakConcurrentSends = 0
    /// `messages:send` requests received per `alert_id`.
    public var requestsByAlertID: [String: Int] = [:]

    public init() {}

    enum CodingKeys: String, CodingKey {
        case delivered, rejected, connections
        case tokenRequests = "token_requests"
        case tokensIssued = "tokens_issued"
        case sendRequests = "send_requests"
        case peakConcurrentSends = "peak_concurrent_sends"
        case requestsByAlertID = "requests_by_alert_id"
    }
}

/// Everything the double records, shared by its requests.
final class MockFCMState: Sendable {
    private struct Records {
        var counters = MockFCMCounters()
        var deliveries: [MockFCMDelivery] = []
        var tokens: [String: (account: String, expiresAt: Int64)] = [:]
        var faultSeen: Set<String> = []
        var connections: Set<ObjectIdentifier> = []
        var inFlight = 0
        var nextMessage = 0
    }

    private let records = Mutex(Records())
    private let keepDeliveries: Bool
    private let log: FileHandle?
    private let encoder: JSONEncoder

    /// `deliveriesPath`: a JSON-lines file each accepted delivery is appended to (created if missing).
    init(keepDeliveries: Bool, deliveriesPath: String? = nil) throws {
        self.keepDeliveries = keepDeliveries
        if let deliveriesPath {
            if !FileManager.default.fileExists(atPath: deliveriesPath) {
                _ = FileManager.default.createFile(atPath: deliveriesPath, contents: nil)
            }
            guard let handle = FileHandle(forWritingAtPath: deliveriesPath) else {
                throw MockFCMError("cannot write deliveries to \(deliveriesPath)")
            }
            handle.seekToEndOfFile()
            log = handle
        } else {
            log = nil
        }
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    }

    func tokenRequested() { records.withLock { $0.counters.tokenRequests += 1 } }

    /// A new access token for `account`, valid until `expiresAt`.
    func issueToken(account: String, expiresAt: Int64) -> String {
        let token = "ya29.mock-" + UUID().uuidString.lowercased()
        records.withLock {
            $0.counters.tokensIssued += 1
            $0.tokens[token] = (account, expiresAt)
        }
        return token
    }

    /// The account of a valid token, or nil (unknown or expired at `now`).
    func account(ofToken token: String, now: Int64) -> String? {
        records.withLock { records in
            guard let entry = records.tokens[token], entry.expiresAt > now else { return nil }
            return entry.account
        }
    }

    /// Makes every access token issued so far expire now (the admin "expire" fault).
    func expireTokens(now: Int64) {
        records.withLock { records in
            for key in records.tokens.keys { records.tokens[key]?.expiresAt = now }
        }
    }

    func sendStarted(connection: ObjectIdentifier?, alertID: String?) {
        records.withLock {
            $0.counters.sendRequests += 1
            if let connection, $0.connections.insert(connection).inserted { $0.counters.connections += 1 }
            if keepDeliveries, let alertID { $0.counters.requestsByAlertID[alertID, default: 0] += 1 }
            $0.inFlight += 1
            $0.counters.peakConcurrentSends = max($0.counters.peakConcurrentSends, $0.inFlight)
        }
    }

    func sendEnded() { records.withLock { $0.inFlight -= 1 } }

    func rejected(_ code: String) { records.withLock { $0.counters.rejected[code, default: 0] += 1 } }

    /// True the first time a once-only fault is asked for with `key` (an alert id).
    func firstTime(_ key: String) -> Bool { records.withLock { $0.faultSeen.insert(key).inserted } }

    /// Records an accepted message and returns its message number.
    func delivered(_ make: (Int) -> MockFCMDelivery) -> MockFCMDelivery {
        records.withLock {
            $0.nextMessage += 1
            let delivery = make($0.nextMessage)
            $0.counters.delivered += 1
            if keepDeliveries { $0.deliveries.append(delivery) }
            if let log, let line = try? encoder.encode(delivery) { log.write(line + Data([0x0A])) }
            return delivery
        }
    }

    func snapshot() -> (MockFCMCounters, [MockFCMDelivery]) { records.withLock { ($0.counters, $0.deliveries) } }

    func clearDeliveries() { records.withLock { $0.deliveries.removeAll() } }
}
