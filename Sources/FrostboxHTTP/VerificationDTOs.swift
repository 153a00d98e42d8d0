import Foundation
import FrostboxCore

/// `GET /admin/verification` and `frostbox verify --json` (issue #48): the scores of the
/// checked nights overall and by country, region, lead and month, with the check's progress.
public struct VerificationBody: Encodable, Sendable {
    public struct Progress: Encodable, Sendable {
        let pending: Int
        let chosen: Int
        let skipped: Int
        let observed: Int
        let unavailable: Int
    }

    public struct Interval: Encodable, Sendable {
        let value: Double
        let low: Double
        let high: Double

        init(_ estimate: Estimate) {
            value = StatusBoxMap.rounded(estimate.value, scale: 10_000)
            low = StatusBoxMap.rounded(estimate.low, scale: 10_000)
            high = StatusBoxMap.rounded(estimate.high, scale: 10_000)
        }
    }

    public struct Bin: Encodable, Sendable {
        let lower: Double
        let upper: Double
        let nights: Int
        let weight: Double
        let meanProbability: Double
        let observedFrequency: Double

        enum CodingKeys: String, CodingKey {
            case lower, upper, nights, weight
            case meanProbability = "mean_probability"
            case observedFrequency = "observed_frequency"
        }
    }

    public struct Level: Encodable, Sendable {
        let level: String
        let hits: Interval
        let misses: Interval
        let falseAlarms: Interval
        let correctNegatives: Interval
        let pod: Interval?
        let far: Interval?
        let csi: Interval?
        let bias: Interval?
        let brier: Double?
        let probabilityNights: Int
        let reliability: [Bin]

        enum CodingKeys: String, CodingKey {
            case level, hits, misses, pod, far, csi, bias, brier, reliability
            case falseAlarms = "false_alarms"
            case correctNegatives = "correct_negatives"
            case probabilityNights = "probability_nights"
        }

        init(_ scores: LevelScores) {
            level = scores.level.description
            hits = Interval(scores.hits)
            misses = Interval(scores.misses)
            falseAlarms = Interval(scores.falseAlarms)
            correctNegatives = Interval(scores.correctNegatives)
            pod = scores.pod.map(Interval.init)
            far = scores.far.map(Interval.init)
            csi = scores.csi.map(Interval.init)
            bias = scores.bias.map(Interval.init)
            brier = scores.brier.map { StatusBoxMap.rounded($0, scale: 10_000) }
            probabilityNights = scores.probabilityNights
            reliability = scores.reliability.map { bin in
                Bin(
                    lower: bin.lower, upper: bin.upper, nights: bin.nights, weight: StatusBoxMap.rounded(bin.weight, scale: 100),
                    meanProbability: StatusBoxMap.rounded(bin.meanProbability, scale: 10_000),
                    observedFrequency: StatusBoxMap.rounded(bin.observedFrequency, scale: 10_000))
            }
        }
    }

    public struct Scores: Encodable, Sendable {
        let nights: Int
        let weight: Double
        let meanErrorC: Double?
        let errorNights: Int
        let levels: [Level]

        enum CodingKeys: String, CodingKey {
            case nights, weight, levels
            case meanErrorC = "mean_error_c"
            case errorNights = "error_nights"
        }

        init(_ scores: VerificationScores) {
            nights = scores.nights
            weight = StatusBoxMap.rounded(scores.weight, scale: 100)
            meanErrorC = scores.meanErrorC.map { StatusBoxMap.rounded($0, scale: 100) }
            errorNights = scores.errorNights
            levels = scores.levels.map(Level.init)
        }
    }

    public struct Group: Encodable, Sendable {
        let key: String
        let scores: Scores
        /// Where a region or country lies (the mean centre of its checked boxes); absent for
        /// leads and months, and when no checked night carries its box.
        let latitude: Double?
        let longitude: Double?

        init(_ group: VerificationReport.Group) {
            key = group.key
            scores = Scores(group.scores)
            latitude = group.latitude.map { StatusBoxMap.rounded($0, scale: 10_000) }
            longitude = group.longitude.map { StatusBoxMap.rounded($0, scale: 10_000) }
        }
    }

    let since: String?
    /// Each level's threshold by level name, as the status map gives them (`StatusBoxMap.thresholds`).
    let thresholdsC: [String: Double]
    let progress: Progress
    let overall: Scores
    let countries: [Group]
    let regions: [Group]
    let leads: [Group]
    let months: [Group]

    enum CodingKeys: String, CodingKey {
        case since, progress, overall, countries, regions, leads, months
        case thresholdsC = "thresholds_c"
    }

    public init(_ overview: VerificationOverview) {
        // RFC 3339's full-date: four digits of year, whatever the year.
        since = overview.since.map { String(format: "%04d-%02d-%02d", $0.year, $0.month, $0.day) }
        thresholdsC = StatusBoxMap.thresholds(overview.thresholds)
        let p = overview.progress
        progress = Progress(pending: p.pending, chosen: p.chosen, skipped: p.skipped, observed: p.observed, unavailable: p.unavailable)
        let report = overview.report
        overall = Scores(report.overall)
        func groups(_ list: [VerificationReport.Group]) -> [Group] { list.map(Group.init) }
        countries = groups(report.countries)
        regions = groups(report.regions)
        leads = groups(report.leads)
        months = groups(report.months)
    }
}
