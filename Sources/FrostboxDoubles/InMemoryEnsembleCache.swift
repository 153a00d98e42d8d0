import FrostboxCore
import Synchronization

/// An `EnsembleCache` in memory, with the same freshness rule as the database ones; counts
/// writes so tests can tell a cached run from a fetching one.
public final class InMemoryEnsembleCache: EnsembleCache {
    private struct State {
        var entries: [GeoBox: EnsembleForecast] = [:]
        var stores = 0
    }

    private let state = Mutex(State())

    public init(_ ensembles: [EnsembleForecast] = []) {
        state.withLock { state in
            for ensemble in ensembles { if let box = ensemble.box { state.entries[box] = ensemble } }
        }
    }

    public func ensembles(for boxes: [GeoBox], fetchedSince: Int64) async throws -> [GeoBox: EnsembleForecast] {
        state.withLock { state in
            var found: [GeoBox: EnsembleForecast] = [:]
            for box in boxes {
                if let ensemble = state.entries[box], ensemble.fetchedAt >= fetchedSince { found[box] = ensemble }
            }
            return found
        }
    }

    public func store(_ ensembles: [EnsembleForecast]) async throws {
        state.withLock { state in
            state.stores += 1
            for ensemble in ensembles { if let box = ensemble.box { state.entries[box] = ensemble } }
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

    /// How many times `store` was called.
    public var storeCount: Int { state.withLock { $0.stores } }

    /// Every cached ensemble.
    public var all: [EnsembleForecast] { state.withLock { Array($0.entries.values) } }
}
