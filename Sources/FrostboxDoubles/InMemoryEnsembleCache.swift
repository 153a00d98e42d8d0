import FrostboxCore

/// An `EnsembleCache` in memory, with the same freshness rule as the database ones; counts
/// writes so tests can tell a cached run from a fetching one.
public final class InMemoryEnsembleCache: EnsembleCache {
    private let shelf: PayloadShelf<EnsembleForecast>

    public init(_ ensembles: [EnsembleForecast] = []) {
        shelf = PayloadShelf(ensembles)
    }

    public func ensembles(for boxes: [GeoBox], fetchedSince: Int64) async throws -> [GeoBox: EnsembleForecast] {
        shelf.payloads(for: boxes, fetchedSince: fetchedSince)
    }

    public func store(_ ensembles: [EnsembleForecast]) async throws {
        shelf.store(ensembles)
    }

    @discardableResult
    public func purge(fetchedBefore: Int64) async throws -> Int {
        shelf.purge(fetchedBefore: fetchedBefore)
    }

    /// How many times `store` was called.
    public var storeCount: Int { shelf.stores }

    /// Every cached ensemble.
    public var all: [EnsembleForecast] { Array(shelf.all.values) }
}
