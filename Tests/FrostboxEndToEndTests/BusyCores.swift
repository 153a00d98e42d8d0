import Foundation
import Synchronization

/// Threads that keep CPU cores busy until stopped: tests of timing-sensitive behaviour run
/// on a loaded machine, as CI runs are.
final class BusyCores: Sendable {
    private let stopping = Atomic<Bool>(false)
    private let finished = DispatchSemaphore(value: 0)
    private let count: Int

    init(_ count: Int) {
        self.count = count
        for index in 0..<count {
            let thread = Thread { [self] in
                var value: UInt64 = 0x9E37_79B9_7F4A_7C15
                while !stopping.load(ordering: .relaxed) {
                    for _ in 0..<10_000 { value = value &* 6_364_136_223_846_793_005 &+ 1 }
                }
                // Keeps the loop from being optimised away.
                if value == 42 { print("") }
                finished.signal()
            }
            thread.name = "busy-core-\(index)"
            thread.start()
        }
    }

    /// Stops every thread and waits for them.
    func stop() {
        guard !stopping.exchange(true, ordering: .relaxed) else { return }
        for _ in 0..<count { finished.wait() }
    }
}
