/// A box's chance of frost as the status page shows it (issue #47): the nights of its cached
/// ensemble still ahead at a moment, with the model and runs they came from.
public struct BoxChance: Sendable, Hashable {
    /// The ensemble model (`icon_seamless`, `ecmwf_ifs025_ensemble_mean`).
    public var model: String
    /// When the ensemble was fetched, UTC epoch seconds.
    public var fetchedAt: Int64
    /// The model runs it came from.
    public var runs: [ModelRun]
    /// Nights not over at the moment asked for, in time order; hours already ended are left
    /// out, as the planner leaves them out.
    public var nights: [NightProbability]

    public init(model: String, fetchedAt: Int64, runs: [ModelRun] = [], nights: [NightProbability]) {
        self.model = model
        self.fetchedAt = fetchedAt
        self.runs = runs
        self.nights = nights
    }

    /// The chance `rule` gives the nights of `ensemble` from `now`.
    public init(ensemble: EnsembleForecast, rule: FrostRule, now: Int64) {
        self.init(model: ensemble.model, fetchedAt: ensemble.fetchedAt, runs: ensemble.runs, nights: rule.probabilities(of: ensemble, from: now))
    }

    /// The chance on the night starting on the evening of `date`; nil when the ensemble does not cover it.
    public func night(_ date: LocalDate) -> NightProbability? {
        nights.first { $0.night == date }
    }
}
