import FrostboxCore

/// A `ForecastCache` in memory, with the same freshness rule as the SQLite one; counts
/// reads and writes so tests can tell a cached run from a fetching one.
public final class InMemoryForecastCache: ForecastCache {
    private let shelf: PayloadShelf<BoxForecast>
    /// The boxes subscriptions name (for `purgeUnsubscribed`); nil: every box counts as
    /// subscribed, and nothing is purged for lack of subscribers.
    private let subscribedBoxes: (@Sendable () -> Set<GeoBox>)?

    public init(_ forecasts: [BoxForecast] = [], subscribedBoxes: (@Sendable () -> Set<GeoBox>)? = nil) {
        self.subscribedBoxes = subscribedBoxes
        shelf = PayloadShelf(forecasts)
    }

    public func forecasts(for boxes: [GeoBox], fetchedSince: Int64) async throws -> [GeoBox: BoxForecast] {
        shelf.payloads(for: boxes, fetchedSince: fetchedSince)
    }

    public func store(_ forecasts: [BoxForecast]) async throws {
        shelf.store(forecasts)
    }

    @discardableResult
    public func purge(fetchedBefore: Int64) async throws -> Int {
        shelf.purge(fetchedBefore: fetchedBefore)
    }

    @discardableResult
    public func purgeUnsubscribed(limit: Int) async throws -> Int {
        guard let subscribedBoxes else { return 0 }
        return shelf.purge(keeping: subscribedBoxes(), limit: limit)
    }

    /// Every cached forecast.
    public var all: [GeoBox: BoxForecast] { shelf.all }
    /// How many `store` calls were made.
    public var storeCount: Int { shelf.stores }
}
