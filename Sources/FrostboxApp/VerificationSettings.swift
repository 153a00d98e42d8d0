/// The check of kept nights against what happened (`verification.*`, issue #48).
public struct VerificationSettings: Sendable, Hashable {
    /// The archive's server: the free historical weather API, the commercial one, or a
    /// self-hosted instance (`verification.url`); `/v1/archive` is appended.
    public var url = "https://archive-api.open-meteo.com"
    /// The archive model (`verification.model`): one without ERA5's five-day delay.
    public var model = "ecmwf_ifs"
    /// Days after a night ended it is checked (`verification.after_days`, 1–30).
    public var afterDays = 2
    /// The check's share of every forecast quota window (`verification.budget_share`, 0–1).
    public var budgetShare = 0.1
    /// Not-alerted nights drawn per region and night (`verification.sample_per_region`).
    public var samplePerRegion = 30

    public init() {}
}
