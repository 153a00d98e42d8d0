/// A counting semaphore for async code: at most `limit` holders at once, the others waiting
/// (suspended, not blocking a thread) in arrival order.
actor ImportSlots {
    private let limit: Int
    private var held = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Waits for a free slot and takes it.
    func acquire() async {
        if held < limit {
            held += 1
            return
        }
        await withCheckedContinuation { waiting.append($0) }
    }

    /// Gives a slot back: to the longest waiter, if any.
    func release() {
        if waiting.isEmpty {
            held = max(0, held - 1)
        } else {
            waiting.removeFirst().resume()
        }
    }
}
