/// Forecasts per box as last fetched, so that a run within the freshness window costs no
/// quota. Each entry keeps the hourly series, its fetch time, and the grid cell and
/// elevation the source answered with.
public protocol ForecastCache: Sendable {
    /// The cached forecasts among `boxes` fetched at or after `fetchedSince` (UTC epoch seconds).
    func forecasts(for boxes: [GeoBox], fetchedSince: Int64) async throws -> [GeoBox: BoxForecast]
    /// Stores (replacing) the forecasts, each under its box.
    func store(_ forecasts: [BoxForecast]) async throws
    /// Drops entries fetched before `fetchedBefore`; returns how many.
    @discardableResult
    func purge(fetchedBefore: Int64) async throws -> Int
    /// Drops up to `limit` entries of boxes that no subscription names any more (their
    /// subscribers left); returns how many. Called in small batches, so that no writer waits
    /// long behind it.
    @discardableResult
    func purgeUnsubscribed(limit: Int) async throws -> Int
}

/// How long a cached forecast stays fresh.
public struct ForecastFreshness: Sendable, Hashable {
    /// Time to live, seconds.
    public var ttlSeconds: Int64

    public init(ttlSeconds: Int64 = 3_600) {
        self.ttlSeconds = ttlSeconds
    }

    /// The earliest fetch time still fresh at `now`.
    public func freshSince(now: Int64) -> Int64 { now - ttlSeconds + 1 }

    /// Whether a forecast fetched at `fetchedAt` is fresh at `now` (one fetched after `now`,
    /// by a later run or a clock ahead of the caller's, is fresh too).
    public func isFresh(fetchedAt: Int64, now: Int64) -> Bool {
        fetchedAt >= freshSince(now: now)
    }
}
