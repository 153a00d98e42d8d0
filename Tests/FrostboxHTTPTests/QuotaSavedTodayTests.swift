import FrostboxCore
import FrostboxHTTP
import Testing

@Suite("Status quota panel: fetches saved today by model runs")
struct QuotaSavedTodayTests {
    @Test("the boxes runs kept current by model run since 00:00 UTC add up; yesterday's runs do not count")
    func savedToday() {
        let midnight: Int64 = 1_774_051_200
        func run(_ startedAt: Int64, freshByRun: Int) -> NotifyRunSummary {
            var run = NotifyRunSummary(id: 1, startedAt: startedAt)
            run.forecastsFreshByRun = freshByRun
            return run
        }
        let runs = [run(midnight + 7_200, freshByRun: 900), run(midnight, freshByRun: 100), run(midnight - 1, freshByRun: 5_000)]
        let usage = QuotaUsage(lastMinute: 0, lastHour: 0, lastDay: 0, budgets: QuotaBudgets())
        #expect(StatusSummary.Quota(usage: usage, hold: nil, runs: runs, now: midnight + 10_000).savedToday == 1_000)
        #expect(StatusSummary.Quota(usage: usage, hold: nil, runs: runs, now: midnight - 10).savedToday == 6_000)
    }
}
