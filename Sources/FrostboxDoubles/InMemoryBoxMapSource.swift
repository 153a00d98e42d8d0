import FrostboxCore
import Synchronization

/// A `BoxMapSource` in memory: the boxes and names a test sets, answered as the SQLite one
/// answers (ordered by key, names sorted and capped).
public final class InMemoryBoxMapSource: BoxMapSource {
    private struct State {
        var boxes: [GeoBox: SubscribedBox] = [:]
        var names: [GeoBox: Set<String>] = [:]
    }

    private let state = Mutex(State())

    public init(_ boxes: [SubscribedBox] = []) {
        set(boxes)
    }

    /// Replaces the boxes.
    public func set(_ boxes: [SubscribedBox]) {
        state.withLock { state in
            state.boxes = Dictionary(boxes.map { ($0.box, $0) }, uniquingKeysWith: { _, last in last })
        }
    }

    /// Adds names subscribed in `box`.
    public func addNames(_ names: [String], in box: GeoBox) {
        state.withLock { $0.names[box, default: []].formUnion(names) }
    }

    public func subscribedBoxes() async throws -> [SubscribedBox] {
        state.withLock { $0.boxes.values.sorted { $0.box.key < $1.box.key } }
    }

    public func placeNames(in boxes: [GeoBox], limit: Int) async throws -> [GeoBox: [String]] {
        state.withLock { state in
            var found: [GeoBox: [String]] = [:]
            for box in Set(boxes) {
                guard let names = state.names[box], !names.isEmpty, limit > 0 else { continue }
                found[box] = Array(names.sorted().prefix(limit))
            }
            return found
        }
    }
}
