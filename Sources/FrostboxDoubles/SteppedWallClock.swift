import Synchronization

/// A frozen wall clock (epoch milliseconds) that only its own sleeps move: a sleeper wakes at
/// its deadline (after letting the other tasks run), the clock never goes back, and every wait
/// asked for is recorded. For anything that paces itself by the wall clock (the push pacer):
/// a paced test takes no real time.
public final class SteppedWallClock: Sendable {
    private let value: Mutex<Int64>
    private let waits = Mutex<[Duration]>([])

    public init(_ start: Int64 = 1_800_000_000_000) { value = Mutex(start) }

    /// Epoch milliseconds now.
    public var now: Int64 { value.withLock { $0 } }

    /// The waits asked for so far, in order.
    public var recorded: [Duration] { waits.withLock { $0 } }

    public var clock: @Sendable () -> Int64 { { self.now } }

    public var sleep: @Sendable (Duration) async throws -> Void {
        { delay in
            try Task.checkCancellation()
            self.waits.withLock { $0.append(delay) }
            let start = self.now
            await Task.yield()
            self.value.withLock { $0 = max($0, start + Int64(delay / .milliseconds(1))) }
        }
    }
}
