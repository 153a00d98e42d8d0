import Synchronization

/// Issues the provider token of one (team, key) pair and shares it with every connection and
/// app that uses that key. A token is reused until it is 50 minutes old, and renewed early
/// only when APNs says `ExpiredProviderToken`; either way never more often than every
/// 20 minutes, since APNs answers `TooManyProviderTokenUpdates` to faster renewals.
public final class APNsProviderTokenIssuer: Sendable {
    /// Age at which a token is replaced before use (APNs refuses tokens older than an hour).
    public static let renewalAge: Int64 = 50 * 60
    /// The shortest time between two tokens.
    public static let minimumRenewalInterval: Int64 = 20 * 60

    /// The key tokens are signed with.
    public let key: APNsSigningKey
    private let clock: @Sendable () -> Int64
    private let current = Mutex<APNsProviderToken?>(nil)

    /// - Parameter clock: UTC epoch seconds; injected so tests can move time.
    public init(key: APNsSigningKey, clock: @escaping @Sendable () -> Int64) {
        self.key = key
        self.clock = clock
    }

    /// The token to send now: the shared one, or a fresh one when it is 50 minutes old.
    public func token() throws -> APNsProviderToken {
        let now = clock()
        return try current.withLock { current in
            if let token = current, now - token.issuedAt < Self.renewalAge {
                return token
            }
            let token = try APNsProviderToken(key: key, issuedAt: now)
            current = token
            return token
        }
    }

    /// APNs rejected `rejected` as expired. Returns the token to retry with: a fresh one,
    /// unless another request already renewed it or the current token is under 20 minutes
    /// old (then the current one, which the caller retries once more at most).
    public func renew(rejected: APNsProviderToken) throws -> APNsProviderToken {
        let now = clock()
        return try current.withLock { current in
            if let token = current, token != rejected || now - token.issuedAt < Self.minimumRenewalInterval {
                return token
            }
            let token = try APNsProviderToken(key: key, issuedAt: now)
            current = token
            return token
        }
    }

    /// The `iat` of the token in use, if one was signed yet.
    public var currentIssuedAt: Int64? { current.withLock { $0?.issuedAt } }
}
