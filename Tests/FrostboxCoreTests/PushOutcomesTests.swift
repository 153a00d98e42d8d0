import FrostboxCore
import Synchronization
import Testing

@Suite("PushOutcomes: outcomes handed over in groups, read one by one")
struct PushOutcomesTests {
    private func delivered(_ index: Int) -> PushOutcome { .delivered(messageID: "m\(index)") }

    @Test("groups of any size, empty ones included, are read one outcome at a time in the order they came")
    func groupsReadInOrder() async {
        let outcomes = PushOutcomes(grouped: { yieldAll in
            yieldAll([(2, delivered(2)), (0, delivered(0))])
            yieldAll([])
            yieldAll([(1, .temporaryFailure(reason: "503"))])
            yieldAll((3..<6).map { ($0, delivered($0)) })
        })
        var read: [Int] = []
        for await (index, _) in outcomes { read.append(index) }
        #expect(read == [2, 0, 1, 3, 4, 5])
    }

    @Test("observed shows every outcome to its observer once, in order, and passes each on")
    func observedKeepsGroups() async {
        let seen = Mutex<[Int]>([])
        let source = PushOutcomes(grouped: { yieldAll in
            yieldAll((0..<3).map { ($0, delivered($0)) })
            yieldAll([(3, delivered(3))])
        })
        let observed = source.observed { index, _ in seen.withLock { $0.append(index) } }
        let regrouped = PushOutcomes(grouped: { yieldAll in
            _ = await observed.collect(into: ()) { _, index, outcome in yieldAll([(index, outcome)]) }
        })
        let all = await regrouped.collect(into: [Int: PushOutcome]()) { $0[$1] = $2 }
        #expect(all.count == 4)
        #expect(all[1] == delivered(1))
        #expect(seen.withLock { $0 } == [0, 1, 2, 3])
    }

    @Test("a sender stopped at once still gives one outcome per push")
    func stoppedGivesEveryOutcome() async {
        let outcomes = PushOutcomes(grouped: { yieldAll in
            let cancelled = Task.isCancelled
            yieldAll((0..<10).map { ($0, cancelled ? .temporaryFailure(reason: "cancelled") : .delivered(messageID: "m\($0)")) })
        })
        outcomes.stopSending()
        let indices = await outcomes.collect(into: [Int]()) { indices, index, _ in indices.append(index) }
        #expect(indices.sorted() == Array(0..<10))
    }
}
