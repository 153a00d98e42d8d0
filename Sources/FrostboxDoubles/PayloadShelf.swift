import FrostboxCore
import Synchronization

/// What the in-memory caches keep, whatever they cache (forecasts, ensembles): the latest
/// payload per box, with the database caches' freshness rule, and how many stores were made.
final class PayloadShelf<Payload: BoxPayload>: Sendable {
    private struct State {
        var entries: [GeoBox: Payload] = [:]
        var stores = 0
    }

    private let state = Mutex(State())

    init(_ payloads: [Payload]) {
        state.withLock { state in
            for payload in payloads { if let box = payload.box { state.entries[box] = payload } }
        }
    }

    /// The payloads among `boxes` fetched at or after `fetchedSince`.
    func payloads(for boxes: [GeoBox], fetchedSince: Int64) -> [GeoBox: Payload] {
        state.withLock { state in
            var found: [GeoBox: Payload] = [:]
            for box in boxes {
                if let payload = state.entries[box], payload.fetchedAt >= fetchedSince { found[box] = payload }
            }
            return found
        }
    }

    /// Stores (replacing) each payload under its box; counts one store.
    func store(_ payloads: [Payload]) {
        state.withLock { state in
            state.stores += 1
            for payload in payloads { if let box = payload.box { state.entries[box] = payload } }
        }
    }

    /// Drops the payloads fetched before `fetchedBefore`; returns how many.
    func purge(fetchedBefore: Int64) -> Int {
        state.withLock { state in
            let old = state.entries.filter { $0.value.fetchedAt < fetchedBefore }.map(\.key)
            for box in old { state.entries[box] = nil }
            return old.count
        }
    }

    /// Drops up to `limit` payloads of boxes not in `kept`, in box order; returns how many.
    func purge(keeping kept: Set<GeoBox>, limit: Int) -> Int {
        state.withLock { state in
            let orphaned = state.entries.keys.filter { !kept.contains($0) }.sorted().prefix(max(0, limit))
            for box in orphaned { state.entries[box] = nil }
            return orphaned.count
        }
    }

    var all: [GeoBox: Payload] { state.withLock { $0.entries } }
    var stores: Int { state.withLock { $0.stores } }
}
