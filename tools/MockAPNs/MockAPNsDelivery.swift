/// One push the double accepted (answered 200), as recorded in memory and as a JSON line.
public struct MockAPNsDelivery: Sendable, Hashable, Codable {
    public var messageID: String
    public var token: String
    public var topic: String
    public var pushType: String
    public var priority: Int
    public var expiration: Int64?
    public var collapseID: String?
    /// The payload exactly as received (UTF-8 JSON).
    public var payload: String
    /// Key id and `iat` of the provider token, for token auth.
    public var keyID: String?
    public var tokenIssuedAt: Int64?
    /// Certificate auth: true when the request came over a client-certificate connection.
    public var certificateAuth: Bool
    /// Which connection (1-based, in accept order) and stream carried it.
    public var connection: Int
    public var stream: Int

    enum CodingKeys: String, CodingKey {
        case messageID = "apns_id"
        case token, topic
        case pushType = "push_type"
        case priority, expiration
        case collapseID = "collapse_id"
        case payload
        case keyID = "key_id"
        case tokenIssuedAt = "token_iat"
        case certificateAuth = "certificate_auth"
        case connection, stream
    }
}

/// What the double has seen so far.
public struct MockAPNsCounters: Sendable, Hashable {
    /// TLS connections accepted.
    public var connections = 0
    /// Requests (streams with a complete request) received.
    public var requests = 0
    /// Requests answered 200 whose answer was written.
    public var delivered = 0
    /// Error answers by reason.
    public var rejected: [String: Int] = [:]
    /// Connections closed by the `0dead` fault.
    public var resets = 0
    /// GOAWAY frames sent.
    public var goAways = 0
    /// Most streams open at once on one connection.
    public var peakConcurrentStreams = 0
    /// Distinct provider tokens seen.
    public var providerTokens = 0
    /// Most streams open at once on one connection after it lowered its stream limit
    /// (`lowerStreamLimit`), counting only streams opened after that.
    public var peakConcurrentStreamsAfterLimitChange = 0
    /// Streams reset by the `05e7` fault.
    public var streamResets = 0
    /// Requests received per apns-id (complete requests, or headers with `answerBeforeBody`).
    public var requestsByID: [String: Int] = [:]

    public init() {}
}
