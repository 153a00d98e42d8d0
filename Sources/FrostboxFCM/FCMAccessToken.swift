import FrostboxCore

/// An OAuth2 access token for FCM and when it stops being valid. Its description is
/// redacted: a whole token never reaches a log.
public struct FCMAccessToken: Sendable, Hashable, CustomStringConvertible {
    /// The bearer token.
    public let value: String
    /// UTC epoch seconds after which the token endpoint said it is no longer valid.
    public let expiresAt: Int64

    public init(value: String, expiresAt: Int64) {
        self.value = value
        self.expiresAt = expiresAt
    }

    /// The `authorization` header value.
    public var bearer: String { "Bearer " + value }

    public var description: String { "FCMAccessToken(\(redact(value)), expires: \(expiresAt))" }
}

/// The token endpoint's answer to an assertion.
public struct FCMAccessGrant: Sendable, Hashable {
    /// `access_token`.
    public var token: String
    /// `expires_in`, seconds.
    public var expiresIn: Int64

    public init(token: String, expiresIn: Int64) {
        self.token = token
        self.expiresIn = expiresIn
    }
}

/// Why no access token could be had.
public enum FCMTokenFailure: Error, Sendable, Hashable {
    /// The token endpoint refused the credentials (`invalid_grant`, `invalid_client`, …, or the
    /// key could not sign): sending for the app stops.
    case refused(reason: String)
    /// The endpoint could not be reached or answered 429/5xx: a temporary failure.
    case unavailable(reason: String)
}

/// Trades a signed assertion for an access token at the account's `token_uri`.
public protocol FCMTokenExchange: Sendable {
    /// One token request, bounded by its own deadline.
    func exchange(_ assertion: FCMAssertion, tokenURI: String) async -> Result<FCMAccessGrant, FCMTokenFailure>
}
