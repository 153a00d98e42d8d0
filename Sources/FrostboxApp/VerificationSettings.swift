/// The check of kept nights against what happened (`verification.*`, issue #48).
public struct VerificationSettings: Sendable, Hashable {
    /// The archive's server (`verification.url`; `/v1/archive` is appended); nil: the
    /// forecast server's archive host (`archive-api.open-meteo.com` for the free API,
    /// `customer-archive-api…` for the commercial one, the server itself when self-hosted).
    public var url: String?
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
