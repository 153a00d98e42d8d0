import FrostboxCore
import Testing

/// `NotifyRunSummary.outcome`: which counts make a run completed, degraded or failed.
@Suite("Notify run outcome")
struct RunOutcomeTests {
    static func summary(
        boxes: Int = 3, cached: Int = 0, fetched: Int = 3, boxesFailed: Int = 0, leftOut: Int = 0, delivered: Int = 0,
        failed: [DeliveryFailureClass: Int] = [:]
    ) -> NotifyRunSummary {
        var s = NotifyRunSummary(startedAt: 0)
        s.boxes = boxes
        s.forecastsCached = cached
        s.forecastsFetched = fetched
        s.boxesFailed = boxesFailed
        s.boxesLeftOut = leftOut
        s.alertsDelivered = delivered
        s.failed = failed
        return s
    }

    @Test("completed when nothing failed, also with nothing to do")
    func completed() {
        #expect(Self.summary().outcome == .completed)
        #expect(Self.summary(boxes: 0, fetched: 0).outcome == .completed)
        #expect(Self.summary(delivered: 2, failed: [.invalidToken: 1, .expired: 1]).outcome == .completed)
    }

    @Test("degraded when some boxes or some pushes failed, or the budget left boxes out")
    func degraded() {
        #expect(Self.summary(fetched: 1, leftOut: 2).outcome == .degraded)
        #expect(Self.summary(fetched: 0, leftOut: 3).outcome == .degraded)
        #expect(Self.summary(fetched: 2, boxesFailed: 1).outcome == .degraded)
        #expect(Self.summary(cached: 1, fetched: 0, boxesFailed: 2).outcome == .degraded)
        #expect(Self.summary(delivered: 1, failed: [.temporary: 1]).outcome == .degraded)
        #expect(Self.summary(delivered: 5, failed: [.permanent: 1]).outcome == .degraded)
    }

    @Test("failed when every box failed or every push failed")
    func failed() {
        #expect(Self.summary(fetched: 0, boxesFailed: 3).outcome == .failed)
        #expect(Self.summary(fetched: 0, boxesFailed: 1, leftOut: 2).outcome == .failed)
        #expect(Self.summary(delivered: 0, failed: [.auth: 4]).outcome == .failed)
        #expect(Self.summary(delivered: 0, failed: [.temporary: 1, .invalidToken: 1]).outcome == .failed)
    }
}
