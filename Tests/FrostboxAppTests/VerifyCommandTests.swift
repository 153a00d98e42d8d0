import FrostboxApp
import FrostboxCore
import Testing

/// Issue #48: what `frostbox verify` prints — the counts and scores per level, the groups, and
/// a sampled count's interval.
@Suite("frostbox verify: the tables")
struct VerifyCommandTests {
    static let night = LocalDate(year: 2026, month: 11, day: 20)
    static let region = VerificationRegion(countryCode: "FI", admin1Code: "18")

    static func overview() -> VerificationOverview {
        let nights = [
            VerifiedNight(
                night: night, region: region, alertedLevel: .freeze, forecastMinimumC: -1, lead: .nextNight, observedMinimumC: -2, stratum: "alerted"),
            VerifiedNight(night: night, region: region, alertedLevel: .freeze, forecastMinimumC: -1, lead: .sameNight, observedMinimumC: 3, stratum: "alerted"),
            VerifiedNight(night: night, region: region, alertedLevel: .none, forecastMinimumC: 2, observedMinimumC: -1, weight: 4, stratum: "s"),
            VerifiedNight(night: night, region: region, alertedLevel: .none, forecastMinimumC: 2, observedMinimumC: 5, weight: 4, stratum: "s"),
        ]
        return VerificationOverview(
            since: nil, thresholds: FrostThresholds(), progress: NightCheckCounts(pending: 7, chosen: 1, skipped: 6, observed: 4),
            report: VerificationReport(nights, thresholds: FrostThresholds()))
    }

    @Test("the freeze row counts hits, sampled misses with their interval, false alarms and scores; groups follow")
    func text() throws {
        let text = VerificationCommands.text(Self.overview())
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.first == "nights checked: 4 (standing for 10 box-nights); waiting for the archive: 1; not drawn: 6; not yet due: 7; unavailable: 0")
        let freeze = try #require(lines.first { $0.hasPrefix("freeze ") })
        let cells = freeze.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        // H 1, M 4 (from 1 to 7: two drawn nights of a stratum of 8), F 1, CN 4 (1 to 7).
        #expect(cells.prefix(4) == ["freeze", "1", "4", "(1–7)"], "\(freeze)")
        #expect(text.contains("freeze by region:") && text.contains("FI.18") && text.contains("freeze by lead:") && text.contains("2026-11"))
        let json = try VerificationCommands.json(Self.overview())
        #expect(json.contains("\"correct_negatives\"") && json.contains("\"key\" : \"FI.18\""))
    }
}
