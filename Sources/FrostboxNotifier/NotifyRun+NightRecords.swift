import FrostboxCore
import Logging
import Metrics

extension NotifyRun {
    /// Keeps each box's nights for the check against what happened (issue #48): the verdict
    /// of every night not yet begun, by the configured rule, with its chance of frost — only
    /// for boxes whose forecast or ensemble was fetched in this run (a cached one gives the
    /// verdict already kept) — and the frost alerts and escalations just queued, one per box and night at
    /// their highest level.
    func keepNights(of batch: ForecastBatch, ensembles: [GeoBox: EnsembleForecast], stored: [OutboxEntry], now: Int64) async throws {
        guard let nightRecords else { return }
        let rule = planner.rule(for: .default)
        var verdicts: [KeptVerdict] = []
        for (box, sourced) in batch.forecasts {
            let ensemble = ensembles[box]
            guard sourced.source == .fetched || (ensemble.map { $0.fetchedAt >= now } ?? false) else { continue }
            let chances = ensemble.map { rule.probabilities(of: $0) } ?? []
            verdicts += KeptVerdict.of(sourced.forecast, box: box, rule: rule, chances: chances, runs: sourced.forecast.runs, now: now)
        }
        try await nightRecords.keep(verdicts)
        var alerts: [FrostEvent: NightAlert] = [:]
        for entry in stored where entry.kind != .allClear {
            let event = FrostEvent(box: entry.event.box, night: entry.event.night, level: .none)
            guard alerts[event].map({ $0.level < entry.event.level }) ?? true else { continue }
            // The box's local date now, as the planner reads the wall clock.
            guard let forecast = batch.forecasts[event.box]?.forecast else { continue }
            let today = AlertPlanner.localTime(at: now, in: forecast).date
            alerts[event] = NightAlert(
                box: event.box, night: event.night, level: entry.event.level, sentAt: now, lead: AlertLead(sent: today, night: event.night))
        }
        try await nightRecords.keep(Array(alerts.values))
    }

    /// Checks the nights now due against what happened (issue #48). Its trouble never fails
    /// the run: the alerts are out; what is left waits for the next run.
    func checkNights(logger: Logger) async {
        guard let nightCheck else { return }
        do {
            let summary = try await nightCheck.check(now: clock())
            logger.info("\(summary.line)")
            for (state, count) in [
                ("chosen", summary.chosen), ("skipped", summary.skipped), ("observed", summary.observed), ("unavailable", summary.unavailable),
            ] where count > 0 {
                Counter(label: FrostboxMetrics.Name.verificationNights, dimensions: [(FrostboxMetrics.Label.state, state)]).increment(by: count)
            }
            if summary.requests > 0 { Counter(label: FrostboxMetrics.Name.verificationRequests).increment(by: summary.requests) }
            if summary.weight > 0 { FloatingPointCounter(label: FrostboxMetrics.Name.verificationWeight).increment(by: summary.weight) }
        } catch {
            logger.warning("night check failed; it goes on at the next run", metadata: ["error": "\(error)"])
        }
    }
}
