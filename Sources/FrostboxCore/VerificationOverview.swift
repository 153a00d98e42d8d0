/// Everything shown about how right the alerts were (issue #48): the scores of the checked
/// nights since a date, and how far the check has come.
public struct VerificationOverview: Sendable {
    /// The first night counted; nil: every night kept.
    public var since: LocalDate?
    /// The thresholds the nights were scored against (the configured rule's).
    public var thresholds: FrostThresholds
    public var progress: NightCheckCounts
    public var report: VerificationReport

    public init(since: LocalDate?, thresholds: FrostThresholds, progress: NightCheckCounts, report: VerificationReport) {
        self.since = since
        self.thresholds = thresholds
        self.progress = progress
        self.report = report
    }

    /// Reads and scores the checked nights of `store`.
    public static func load(from store: any NightCheckStore, since: LocalDate?, thresholds: FrostThresholds) async throws -> VerificationOverview {
        let nights = try await store.verifiedNights(since: since)
        return VerificationOverview(
            since: since, thresholds: thresholds, progress: try await store.nightCheckCounts(),
            report: VerificationReport(nights, thresholds: thresholds))
    }
}
