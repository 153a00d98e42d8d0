import Synchronization

/// Hands out one VAPID token per push service origin and shares it with every request to
/// that origin: a token is reused until less than an hour of it is left, then a new one is
/// signed. Safe to call from any task.
package final class VAPIDTokenCache: Sendable {
    /// A token with less than this left (seconds) is replaced before use.
    package static let renewalMargin: Int64 = 60 * 60
    /// Origins kept at most. There are a handful of push services; the bound keeps endpoints
    /// naming many hosts from growing the cache without end.
    package static let maximumOrigins = 256

    /// The key tokens are signed with.
    package let key: VAPIDKey
    /// The `sub` of every token.
    package let subject: VAPIDSubject
    private let clock: @Sendable () -> Int64
    private let tokens = Mutex<[String: VAPIDToken]>([:])

    /// - Parameter clock: UTC epoch seconds; injected so tests can move time.
    package init(key: VAPIDKey, subject: VAPIDSubject, clock: @escaping @Sendable () -> Int64) {
        self.key = key
        self.subject = subject
        self.clock = clock
    }

    /// The token to send to the push service at `origin` now.
    package func token(for origin: String) throws(WebPushEncryptionError) -> VAPIDToken {
        let now = clock()
        return try tokens.withLock { tokens throws(WebPushEncryptionError) in
            if let token = tokens[origin], token.expiresAt - now >= Self.renewalMargin {
                return token
            }
            let token = try VAPIDToken(key: key, audience: origin, subject: subject, now: now)
            if tokens[origin] == nil, tokens.count >= Self.maximumOrigins {
                tokens = tokens.filter { $0.value.expiresAt - now >= Self.renewalMargin }
                // Still full: every entry is fresh. Start over; a token is cheap to sign again.
                if tokens.count >= Self.maximumOrigins { tokens.removeAll() }
            }
            tokens[origin] = token
            return token
        }
    }
}
