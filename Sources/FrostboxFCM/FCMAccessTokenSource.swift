import FrostboxCore

/// The access token of one service account, shared by every request of the apps that use it:
/// fetched on first use, reused until `refreshMargin` before it expires, refreshed by one
/// request at a time however many sends need it (the others wait for that one), and renewed
/// early only when FCM refuses the token in use.
public actor FCMAccessTokenSource {
    /// How long before its expiry a token is replaced.
    public static let refreshMargin: Int64 = 5 * 60

    /// The account tokens are fetched for.
    public nonisolated let account: FCMServiceAccount
    private let exchange: any FCMTokenExchange
    private let clock: @Sendable () -> Int64
    private var current: FCMAccessToken?
    /// When `current` is replaced before use: `refreshMargin` before it expires, or half-way
    /// through the life of a token that lives less than ten minutes.
    private var refreshAt: Int64 = 0
    private var refreshing: Task<Result<FCMAccessToken, FCMTokenFailure>, Never>?
    /// Token requests made so far (tests and the log count them).
    public private(set) var exchanges = 0

    /// - Parameter clock: UTC epoch seconds; injected so tests can move time.
    public init(account: FCMServiceAccount, exchange: any FCMTokenExchange, clock: @escaping @Sendable () -> Int64) {
        self.account = account
        self.exchange = exchange
        self.clock = clock
    }

    /// The token to send with now: the cached one while it is fresh, else a new one.
    public func token() async -> Result<FCMAccessToken, FCMTokenFailure> {
        if let current, clock() < refreshAt {
            return .success(current)
        }
        return await refresh()
    }

    /// FCM answered 401 to `rejected`. Returns the token to retry with: the current one when
    /// another request has already replaced `rejected`, else a freshly fetched one.
    public func renew(rejected: FCMAccessToken) async -> Result<FCMAccessToken, FCMTokenFailure> {
        if let current, current != rejected {
            return .success(current)
        }
        if refreshing == nil { current = nil }
        return await refresh()
    }

    /// Joins the refresh in flight, or starts one.
    private func refresh() async -> Result<FCMAccessToken, FCMTokenFailure> {
        if let refreshing {
            return await refreshing.value
        }
        exchanges += 1
        let account = account
        let exchange = exchange
        let clock = clock
        // An unstructured task so that the refresh is shared: a waiting send that is
        // cancelled must not cancel the token the others wait for.
        let task = Task { () -> Result<FCMAccessToken, FCMTokenFailure> in
            let now = clock()
            let assertion: FCMAssertion
            do {
                assertion = try FCMAssertion(account: account, now: now)
            } catch {
                return .failure(.refused(reason: "CannotSignAssertion"))
            }
            return await exchange.exchange(assertion, tokenURI: account.tokenURI).map { grant in
                FCMAccessToken(value: grant.token, expiresAt: now + max(0, grant.expiresIn))
            }
        }
        refreshing = task
        let result = await task.value
        refreshing = nil
        if case .success(let token) = result {
            current = token
            let lifetime = token.expiresAt - clock()
            refreshAt = token.expiresAt - min(Self.refreshMargin, max(0, lifetime) / 2)
        }
        return result
    }
}
