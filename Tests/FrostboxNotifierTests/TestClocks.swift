import Synchronization

/// A settable clock for `now:`.
final class TestClock: Sendable {
    private let value: Mutex<Int64>
    init(_ start: Int64) { value = Mutex(start) }
    var now: Int64 { value.withLock { $0 } }
    func set(_ t: Int64) { value.withLock { $0 = t } }
    func advance(_ seconds: Int64) { value.withLock { $0 += seconds } }
}

/// Records the durations asked of it instead of sleeping.
final class RecordingSleeper: Sendable {
    private let durations = Mutex<[Duration]>([])
    private let limit: Int?
    /// With `limit`, the call after `limit` sleeps throws `CancellationError` (stops a service loop).
    init(limit: Int? = nil) { self.limit = limit }
    var slept: [Duration] { durations.withLock { $0 } }
    func sleep(_ duration: Duration) async throws {
        let stop = durations.withLock { list -> Bool in
            if let limit, list.count >= limit { return true }
            list.append(duration)
            return false
        }
        if stop { throw CancellationError() }
    }
}
