/// The outcomes of one batch handed to a `PushSender`: each push's index in the batch with
/// what became of it, in the order they complete. A sender yields exactly one outcome per
/// push and then finishes. Outcomes travel in groups (a sender that learns several at once —
/// a burst of answers read in one event-loop tick — hands them over together, and the reader
/// wakes once for the group); iteration still gives them one by one.
public struct PushOutcomes: AsyncSequence, Sendable {
    public typealias Element = (index: Int, outcome: PushOutcome)

    private let stream: AsyncStream<[Element]>
    private let producer: Task<Void, Never>?

    /// Outcomes a sender produces through `body`: it calls `yield` once per push (from any
    /// thread) and returns when the batch is done. The sequence ends when `body` returns.
    public init(_ body: @escaping @Sendable (_ yield: @escaping @Sendable (Int, PushOutcome) -> Void) async -> Void) {
        self.init(grouped: { yieldAll in await body { index, outcome in yieldAll([(index, outcome)]) } })
    }

    /// Outcomes a sender produces in groups through `body`: each call of `yieldAll` hands over
    /// the outcomes it knows now (each push exactly once over all calls), from any thread.
    public init(grouped body: @escaping @Sendable (_ yieldAll: @escaping @Sendable ([Element]) -> Void) async -> Void) {
        let (stream, continuation) = AsyncStream.makeStream(of: [Element].self, bufferingPolicy: .unbounded)
        self.stream = stream
        let task = Task {
            await body { outcomes in if !outcomes.isEmpty { continuation.yield(outcomes) } }
            continuation.finish()
        }
        continuation.onTermination = { termination in
            if case .cancelled = termination { task.cancel() }
        }
        producer = task
    }

    /// Outcomes already known (a sender that answers without sending).
    public init(_ outcomes: [PushOutcome]) {
        let (stream, continuation) = AsyncStream.makeStream(of: [Element].self, bufferingPolicy: .unbounded)
        if !outcomes.isEmpty { continuation.yield(outcomes.enumerated().map { ($0.offset, $0.element) }) }
        continuation.finish()
        self.stream = stream
        producer = nil
    }

    /// A batch sent one push at a time by `send`, all of the batch at once (the batch size is
    /// the caller's bound): for senders whose gateway has no batched path of its own.
    public static func concurrently(
        _ batch: [PushNotification], _ send: @escaping @Sendable (PushNotification) async -> PushOutcome
    ) -> PushOutcomes {
        PushOutcomes { yield in
            await withTaskGroup(of: Void.self) { group in
                for (index, notification) in batch.enumerated() {
                    group.addTask { yield(index, await send(notification)) }
                }
            }
        }
    }

    /// Reads every outcome to the end, folding each into a result. If the calling task is
    /// cancelled meanwhile, the sender is asked to start nothing new (`stopSending`) and the
    /// reading still goes on to the end: the answers to pushes already sent are never dropped.
    public func collect<Result: Sendable>(
        into initial: Result, _ update: @escaping @Sendable (inout Result, Int, PushOutcome) -> Void
    ) async -> Result {
        await collectGroups(into: initial) { result, group in
            for (index, outcome) in group { update(&result, index, outcome) }
        }
    }

    /// `collect`, a group of outcomes at a time.
    private func collectGroups<Result: Sendable>(
        into initial: Result, _ update: @escaping @Sendable (inout Result, [Element]) -> Void
    ) async -> Result {
        let stream = self.stream
        let reading = Task {
            var result = initial
            for await group in stream { update(&result, group) }
            return result
        }
        return await withTaskCancellationHandler {
            await reading.value
        } onCancel: {
            stopSending()
        }
    }

    /// Outcomes passed on as they come, each first shown to `observe` (for decorators such as
    /// metrics), in the groups they came in; stopping the returned sequence stops this one.
    public func observed(_ observe: @escaping @Sendable (Int, PushOutcome) -> Void) -> PushOutcomes {
        let source = self
        return PushOutcomes(grouped: { yieldAll in
            await source.collectGroups(into: ()) { _, group in
                for (index, outcome) in group { observe(index, outcome) }
                yieldAll(group)
            }
        })
    }

    /// Asks the sender to start nothing new (no retry, no further push): the sending task is
    /// cancelled. Outcomes of pushes already sent still come, so a caller that stops keeps
    /// reading to the end.
    public func stopSending() { producer?.cancel() }

    public func makeAsyncIterator() -> Iterator { Iterator(groups: stream.makeAsyncIterator()) }

    /// Gives the outcomes one by one, whatever groups they came in.
    public struct Iterator: AsyncIteratorProtocol {
        var groups: AsyncStream<[Element]>.Iterator
        var current: [Element] = []
        var position = 0

        public mutating func next() async -> Element? {
            while position == current.count {
                guard let group = await groups.next() else { return nil }
                current = group
                position = 0
            }
            defer { position += 1 }
            return current[position]
        }
    }
}
