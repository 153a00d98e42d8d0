import FrostboxCore
import Synchronization

/// A `ForecastCache` in memory, with the same freshness rule as the SQLite one; counts
/// reads and writes so tests can tell a cached run from a fetching one.
public final class InMemoryForecastCache: ForecastCache {
    private struct State {
        var entries: [GeoBox: BoxForecast] = [:]
        var stores = 0
    }

    private let state = Mutex(State())
    /// The boxes subscriptions name (for `purgeUnsubscribed`); nil: every box counts as
    /// subscribed, and nothing is purged for lack of subscribers.
    private let subscribedBoxes: (@Sendable () -> Set<GeoBox>)?

    public init(_ forecasts: [BoxForecast] = [], subscribedBoxes: (@Sendable () -> Set<GeoBox>)? = nil) {
        self.subscribedBoxes = subscribedBoxes
        state.withLock { state in
            for forecast in forecasts { if let box = forecast.box { state.entries[box] = forecast } }
        }
    }

    public func forecasts(for boxes: [GeoBox], fetchedSince: Int64) async throws -> [GeoBox: BoxForecast] {
        state.withLock { state in
            var found: [GeoBox: BoxForecast] = [:]
            for box in boxes {
                if let forecast = state.entries[box], forecast.fetchedAt >= fetchedSince { found[box] = forecast }
            }
            return found
        }
    }

    public func store(_ forecasts: [BoxForecast]) async throws {
        state.withLock { state in
            state.stores += 1
            for forecast in forecasts { if let box = forecast.box { state.entries[box] = forecast } }
        }
    }

    @discardableResult
    public func purge(fetchedBefore: Int64) async throws -> Int {
        state.withLock { state in
            let old = state.entries.filter { $0.value.fetchedAt < fetchedBefore }.map(\.key)
            for box in old { state.entries[box] = nil }
            return old.count
        }
    }

    @discardableResult
    public func purgeUnsubscribed(limit: Int) async throws -> Int {
        guard let subscribedBoxes else { return 0 }
        let subscribed = subscribedBoxes()
        return state.withLock { state in
            let orphaned = state.entries.keys.filter { !subscribed.contains($0) }.sorted().prefix(max(0, limit))
            for box in orphaned { state.entries[box] = nil }
            return orphaned.count
        }
    }

    /// Every cached forecast.
    public var all: [GeoBox: BoxForecast] { state.withLock { $0.entries } }
    /// How many `store` calls were made.
    public var storeCount: Int { state.withLock { $0.stores } }
}
