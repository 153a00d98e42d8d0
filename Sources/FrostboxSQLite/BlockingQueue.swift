import Foundation

/// A bounded blocking FIFO between two threads.
public final class BlockingQueue<Element: Sendable>: @unchecked Sendable {
    // @unchecked Sendable: every field is read and written only while holding `condition`.
    private let condition = NSCondition()
    private var items: [Element] = []
    private var closed = false
    private var failed = false
    public let capacity: Int

    public init(capacity: Int) { self.capacity = capacity }

    /// Waits for room; false when the consumer has failed.
    public func put(_ item: Element) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while items.count >= capacity && !failed { condition.wait() }
        guard !failed else { return false }
        items.append(item)
        condition.broadcast()
        return true
    }

    /// The next item; nil once closed and drained (or failed).
    public func take() -> Element? {
        condition.lock()
        defer { condition.unlock() }
        while items.isEmpty && !closed && !failed { condition.wait() }
        guard !failed, !items.isEmpty else { return nil }
        let item = items.removeFirst()
        condition.broadcast()
        return item
    }

    public func close() {
        condition.lock()
        closed = true
        condition.broadcast()
        condition.unlock()
    }

    public func fail() {
        condition.lock()
        failed = true
        condition.broadcast()
        condition.unlock()
    }
}
