import FrostboxCore
import FrostboxDoubles
import FrostboxForecasting
import FrostboxOpenMeteo
import Logging
import MockOpenMeteo
import Testing

/// Issue #48 end to end below the notifier: kept nights checked by `NightChecker` through the
/// real archive client against the mock's `/v1/archive`, whose observed nights are set so the
/// hits, misses and false alarms are known; the weight the mock charged is the ledger's, and
/// never more than the share.
@Suite("Night check against the mock archive")
struct NightCheckArchiveTests {
    static let night = LocalDate(year: 2026, month: 11, day: 20)
    /// Helsinki time (UTC+2 in November): the night runs 16:00 UTC on the 20th to 08:00 UTC on the 21st.
    static let windowStart = night.daysSinceEpoch * 86_400 + 16 * 3_600
    static let windowEnd = windowStart + 16 * 3_600
    static let now = windowEnd + 3 * 86_400
    static let boxes = row(40, latitude: 60.2, longitude: 24)

    /// Boxes 0–9 alerted at freeze; what happened: 0–6 froze (hits), 7–9 did not (false
    /// alarms), 10–14 froze unalerted (misses), 15–39 stayed mild (correct negatives).
    static func scenario() -> MockScenario {
        let lows = boxes.indices.map { index -> Double in
            switch index {
            case 0..<7: -3
            case 7..<10: 5
            case 10..<15: -1
            default: 4
            }
        }
        let spots = zip(boxes, lows).map { ObservedSpot(latitude: $0.latitude, longitude: $0.longitude, minimumC: $1, nights: [night]) }
        return MockScenario(now: now, observed: spots)
    }

    static func store() async throws -> InMemoryNotifierStore {
        let store = InMemoryNotifierStore()
        try await store.keep(
            boxes.map { box in
                KeptVerdict(
                    box: box, night: night, windowStart: windowStart, windowEnd: windowEnd, utcOffsetSeconds: 7_200, level: .none, minimumC: 2,
                    judgedAt: windowStart - 7_200)
            })
        try await store.keep(boxes.prefix(10).map { NightAlert(box: $0, night: night, level: .freeze, sentAt: windowStart - 7_200, lead: .sameNight) })
        return store
    }

    static func checker(_ h: MockHarness, store: InMemoryNotifierStore, ledger: InMemoryQuotaLedger) -> NightChecker {
        var settings = NightChecker.Settings()
        settings.samplePerStratum = 100
        let archive = OpenMeteoArchiveClient(
            client: h.client,
            configuration: OpenMeteoSettings(baseURL: h.client.configuration.baseURL, requestTimeoutSeconds: 60, connectTimeoutSeconds: 30))
        return NightChecker(
            store: store, fetcher: archive, ledger: ledger, regions: nil, settings: settings, clock: h.clock, owner: "test",
            logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
    }

    @Test("every night checked in one request of 40 locations; hits, misses, false alarms and correct negatives as set; weight as charged")
    func counted() async throws {
        try await MockHarness.run(Self.scenario()) { h in
            let store = try await Self.store()
            let ledger = InMemoryQuotaLedger()
            let summary = try await Self.checker(h, store: store, ledger: ledger).check(now: Self.now)
            #expect(summary.chosen == 40 && summary.observed == 40 && summary.requests == 1 && summary.stoppedBy == nil)
            let freeze = try #require(
                VerificationScores(try await store.verifiedNights(since: nil), thresholds: FrostThresholds()).levels.first { $0.level == .freeze })
            #expect(freeze.hits.value == 7 && freeze.falseAlarms.value == 3 && freeze.misses.value == 5 && freeze.correctNegatives.value == 25)
            let counters = h.mock.counters
            #expect(counters.archiveRequests == 1 && counters.archiveLocations == 40 && counters.archiveWeight == 40)
            #expect(ledger.charges.map(\.charge.weight).reduce(0, +) == counters.archiveWeight)
            // Checked again: nothing left to ask.
            let again = try await Self.checker(h, store: store, ledger: ledger).check(now: Self.now + 3_600)
            #expect(again.requests == 0 && h.mock.counters.archiveRequests == 1)
        }
    }

    @Test("a share of 10 a minute: 10 locations asked, the rest wait for the next check, none asked twice")
    func share() async throws {
        try await MockHarness.run(Self.scenario()) { h in
            let store = try await Self.store()
            let ledger = InMemoryQuotaLedger(budgets: QuotaBudgets(perMinute: 100, perHour: 5_000, perDay: 10_000))
            let first = try await Self.checker(h, store: store, ledger: ledger).check(now: Self.now)
            #expect(first.observed == 10 && first.stoppedBy == "budget share used")
            #expect(h.mock.counters.archiveWeight == 10)
            #expect(try await store.nightCheckCounts() == NightCheckCounts(chosen: 30, observed: 10))
            // A minute on, ten more; four minutes on, all.
            for minute in 1...3 { _ = try await Self.checker(h, store: store, ledger: ledger).check(now: Self.now + Int64(minute) * 61) }
            #expect(try await store.nightCheckCounts() == NightCheckCounts(observed: 40))
            #expect(h.mock.counters.archiveLocations == 40 && h.mock.counters.archiveWeight == 40)
        }
    }
}
