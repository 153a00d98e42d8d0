import FrostboxCore
import FrostboxDoubles
import FrostboxFixtures
import FrostboxForecasting
import FrostboxNotifier
import Logging
import Synchronization
import Testing

/// Issue #48: a week of daily runs with a frozen clock; each night is checked against the
/// archive two days after it ended, and the scores are the hand-counted ones.
@Suite("Notifier: nights checked against what happened")
struct NightCheckNotifierTests {
    static let first = Fixtures.day
    static let boxA = Fixtures.box
    static let boxB = Fixtures.otherBox
    static let boxC = GeoBox(Coordinate(uncheckedLatitude: 62.0, longitude: 25.0))
    static let week = LocalDate(daysSinceEpoch: first.daysSinceEpoch + 7)
    static let fi = VerificationRegion(countryCode: "FI", admin1Code: "18")
    static let se = VerificationRegion(countryCode: "SE", admin1Code: "26")

    /// The forecast low of each night (index from `first`) per box; nil: mild.
    static let forecastLows: [GeoBox: [Int: Double]] = [boxA: [0: -1, 1: -1, 2: -1], boxC: [4: -1, 5: -1, 6: -1]]
    /// What happened: A froze on nights 0 and 1 (hits), not on 2 (a false alarm), and on 5
    /// unforecast (a miss); B froze on night 3 (a miss); C froze on 4–6 (hits).
    static let observedLows: [GeoBox: [Int: Double]] = [boxA: [0: -3, 1: -1.5, 2: 4, 5: -2], boxB: [3: -0.5], boxC: [4: -1, 5: -4, 6: 0]]

    /// 96 hours from local midnight of `day`: 8 °C, nights of `lows` at 6 °C falling to the low at 05:00.
    static func forecast(_ box: GeoBox, from day: LocalDate, fetchedAt: Int64) -> BoxForecast {
        var forecast = Fixtures.forecast(box: box) { _, _ in nil }
        let start = Fixtures.instant(day, 0)
        forecast.fetchedAt = fetchedAt
        forecast.hours = (0..<96).map { index in
            let time = start + Int64(index) * 3_600
            let local = LocalDateTime(wallClockSeconds: time + Fixtures.offset)
            return ForecastHour(
                time: time, local: local, temperatureC: temperature(lows: forecastLows[box] ?? [:], local: local), cloudCoverPercent: 10,
                windSpeedKmh: 5)
        }
        return forecast
    }

    /// The temperature at a local hour given each night's low.
    static func temperature(lows: [Int: Double], local: LocalDateTime) -> Double {
        let night: LocalDate? = local.hour >= 18 ? local.date : local.hour < 10 ? local.date.previous : nil
        guard let night, let low = lows[Int(night.daysSinceEpoch - first.daysSinceEpoch)] else { return 8 }
        return local.hour == 5 ? low : max(low, 6)
    }

    struct Regions: RegionLocator {
        func regions(of boxes: [GeoBox]) async throws -> [GeoBox: VerificationRegion] {
            Dictionary(uniqueKeysWithValues: boxes.map { ($0, $0 == NightCheckNotifierTests.boxC ? NightCheckNotifierTests.se : NightCheckNotifierTests.fi) })
        }
    }

    static func archive() -> ScriptedObservationFetcher {
        ScriptedObservationFetcher { box, time in
            temperature(lows: observedLows[box] ?? [:], local: LocalDateTime(wallClockSeconds: time + Fixtures.offset))
        }
    }

    static func harness(archive: ScriptedObservationFetcher, ledger: InMemoryQuotaLedger, share: Double = 0.1) -> Harness {
        var h = Harness()
        h.store.subscribe(Fixtures.token(1), box: boxA, name: "A")
        h.store.subscribe(Fixtures.token(2), box: boxB, name: "B")
        h.store.subscribe(Fixtures.token(3), box: boxC, name: "C")
        var settings = NightChecker.Settings()
        settings.samplePerStratum = 100
        settings.budgetShare = share
        h.nightCheck = NightChecker(
            store: h.store, fetcher: archive, ledger: ledger, regions: Regions(), settings: settings, clock: TestForecastClock(clock: h.clock),
            owner: "test", logger: Logger(label: "test"))
        return h
    }

    /// Runs at 14:00 on each day from `first` through `first + days`, forecasts fetched each day.
    static func runDays(_ h: Harness, through days: Int, from start: Int = 0) async throws {
        for day in start...days {
            let date = LocalDate(daysSinceEpoch: first.daysSinceEpoch + Int64(day))
            h.clock.set(Fixtures.instant(date, 14))
            for box in [boxA, boxB, boxC] { h.forecasts.set(forecast(box, from: date, fetchedAt: h.clock.now)) }
            _ = try await h.run()
        }
    }

    @Test("a week of nights: every one checked two days after it ended; hits, misses, false alarms and scores as counted by hand")
    func weekOfNights() async throws {
        let archive = Self.archive()
        let ledger = InMemoryQuotaLedger()
        let h = Self.harness(archive: archive, ledger: ledger)
        // Night 6 ends at 10:00 on day 7 and is due two days later: the run of day 9 checks it.
        try await Self.runDays(h, through: 9)
        let nights = try await h.store.verifiedNights(since: nil).filter { $0.night < Self.week }
        #expect(nights.count == 21, "3 boxes × 7 nights")
        let scores = VerificationScores(nights, thresholds: FrostThresholds())
        let freeze = try #require(scores.levels.first { $0.level == .freeze })
        // Freeze (≤ 0 °C): hits A0, A1, C4, C5, C6; misses A5, B3; false alarm A2; 13 correct negatives.
        #expect(freeze.hits.value == 5 && freeze.misses.value == 2 && freeze.falseAlarms.value == 1 && freeze.correctNegatives.value == 13)
        #expect(freeze.hits.low == 5 && freeze.hits.high == 5, "a census has no sampling error")
        #expect(freeze.pod?.value == 5.0 / 7 && freeze.far?.value == 1.0 / 6 && freeze.csi?.value == 5.0 / 8 && freeze.bias?.value == 6.0 / 7)
        // Hard freeze (≤ −2 °C) was never alerted: A0, A5 and C5 happened, all misses.
        let hard = try #require(scores.levels.first { $0.level == .hardFreeze })
        #expect(hard.hits.value == 0 && hard.misses.value == 3 && hard.falseAlarms.value == 0)
        // Forecast minus observed over the nights with a kept low: A0 +2, A1 +0.5, A2 −5, A5 +10, B3 +8.5, C5 +3, C6 −1, others 0.
        #expect(abs((scores.meanErrorC ?? .nan) - 18.0 / 21) < 1e-9)
        // By region: C is Swedish; its three nights are all hits.
        let report = VerificationReport(nights, thresholds: FrostThresholds())
        let swedish = try #require(report.regions.first { $0.key == "SE.26" })
        #expect(swedish.scores.levels.first { $0.level == .freeze }?.hits.value == 3)
        // Nights 0–6 fell due on days 3–9: one request a day, each box one location of it; nothing asked twice.
        #expect(archive.requests.count == 7 && archive.requests.allSatisfy { Set($0.boxes) == [Self.boxA, Self.boxB, Self.boxC] })
        let counts = try await h.store.nightCheckCounts()
        #expect(counts.chosen == 0 && counts.observed >= 21 && counts.unavailable == 0)
        // The check's charges carry its purpose: forecasts never pay for it.
        #expect(ledger.charges.allSatisfy { $0.charge.purpose == NightChecker.purpose } && ledger.charges.count == archive.requests.count)
    }

    @Test("the check never spends more than its share; what does not fit waits and is checked by later runs, once")
    func budgetShareAndResume() async throws {
        let archive = Self.archive()
        // A share of 1 a day: one box a day.
        let ledger = InMemoryQuotaLedger(budgets: QuotaBudgets(perMinute: 10, perHour: 10, perDay: 10))
        let h = Self.harness(archive: archive, ledger: ledger)
        try await Self.runDays(h, through: 4)
        #expect(archive.requests.allSatisfy { $0.boxes.count == 1 })
        let spentToday = try await ledger.usage(at: h.clock.now).lastDay
        #expect(spentToday <= 1)
        // Run on: still one box a day, but a box's location carries all its chosen nights, so
        // every night gets checked, none twice.
        try await Self.runDays(h, through: 12, from: 5)
        let nights = try await h.store.verifiedNights(since: nil).filter { $0.night < Self.week }
        #expect(nights.count == 21)
        let locations = archive.requests.flatMap(\.boxes)
        #expect(locations.count <= 10, "one box a day on days 3–12: \(locations.count)")
    }

    @Test("a check cut short after choosing is resumed by the next run: nothing chosen again, nothing counted twice")
    func resumesAfterACut() async throws {
        let archive = Self.archive()
        let ledger = InMemoryQuotaLedger()
        let h = Self.harness(archive: archive, ledger: ledger)
        // The archive fails: the nights are chosen, none observed.
        archive.fail(with: .remote(status: 503, reason: "down"))
        try await Self.runDays(h, through: 4)
        let cut = try await h.store.nightCheckCounts()
        #expect(cut.chosen > 0 && cut.observed == 0)
        archive.fail(with: nil)
        try await Self.runDays(h, through: 9, from: 5)
        let nights = try await h.store.verifiedNights(since: nil).filter { $0.night < Self.week }
        #expect(nights.count == 21)
        let freeze = VerificationScores(nights, thresholds: FrostThresholds()).levels.first { $0.level == .freeze }
        #expect(freeze?.hits.value == 5 && freeze?.misses.value == 2 && freeze?.falseAlarms.value == 1)
    }

    @Test("another instance holding the check: this one does nothing and asks nothing")
    func leaseHeldElsewhere() async throws {
        let archive = Self.archive()
        let h = Self.harness(archive: archive, ledger: InMemoryQuotaLedger())
        #expect(try await h.store.claimNightCheck(owner: "other", at: 0, until: .max))
        try await Self.runDays(h, through: 9)
        #expect(archive.requests.isEmpty)
        #expect(try await h.store.nightCheckCounts().chosen == 0)
    }

    @Test("a night the archive has only in part is asked again six hours later, not at every run; then kept")
    func askedAgainLater() async throws {
        let analysed = Mutex(false)
        let archive = ScriptedObservationFetcher { box, time in
            // Until analysed, the archive lacks the last hours of every night.
            let local = LocalDateTime(wallClockSeconds: time + Fixtures.offset)
            if !analysed.withLock({ $0 }), local.hour >= 6, local.hour < 10 { return nil }
            return Self.temperature(lows: Self.observedLows[box] ?? [:], local: local)
        }
        let h = Self.harness(archive: archive, ledger: InMemoryQuotaLedger())
        try await Self.runDays(h, through: 3)
        #expect(archive.requests.count == 1)
        #expect(try await h.store.nightCheckCounts().chosen == 3)
        // An hour later: not asked again.
        h.clock.advance(3_600)
        _ = try await h.run()
        #expect(archive.requests.count == 1)
        // Six hours after it was asked: asked again, and kept once whole.
        analysed.withLock { $0 = true }
        h.clock.advance(5 * 3_600)
        _ = try await h.run()
        #expect(archive.requests.count == 2)
        let counts = try await h.store.nightCheckCounts()
        #expect(counts.chosen == 0 && counts.observed == 3)
    }
}
