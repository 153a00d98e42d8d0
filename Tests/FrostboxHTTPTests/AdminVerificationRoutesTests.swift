import FrostboxCore
import FrostboxDoubles
import FrostboxHTTP
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing

/// Issue #48: `GET /admin/verification` answers the scores of the checked nights from an
/// in-memory store, with sampled counts' intervals and the progress of the check.
@Suite("Admin API: how right the alerts were")
struct AdminVerificationRoutesTests {
    static let night = LocalDate(year: 2026, month: 11, day: 20)

    /// A store with three checked nights in one region: a hit, a false alarm (both alerted),
    /// and a sampled not-alerted night that froze (a miss standing for four).
    static func store() async throws -> InMemoryNotifierStore {
        let store = InMemoryNotifierStore()
        let region = VerificationRegion(countryCode: "FI", admin1Code: "18")
        let boxes = (0..<6).map { GeoBox(latitudeIndex: 1_200 + $0, longitudeIndex: 500) }
        let start: Int64 = 1_795_500_000
        try await store.keep(
            boxes.map { box in
                KeptVerdict(
                    box: box, night: night, windowStart: start, windowEnd: start + 57_600, utcOffsetSeconds: 7_200, level: .none, minimumC: 1,
                    probabilities: [.frostRisk: 0.5, .freeze: 0.25, .hardFreeze: 0], judgedAt: start - 3_600)
            })
        try await store.keep(
            boxes.prefix(2).map { NightAlert(box: $0, night: night, level: .freeze, sentAt: start - 3_600, lead: .nextNight) } as [NightAlert])
        let choices =
            [
                NightChoice(box: boxes[0], night: night, region: region, stratum: NightSampler.censusStratum, weight: 1, chosen: true),
                NightChoice(box: boxes[1], night: night, region: region, stratum: NightSampler.censusStratum, weight: 1, chosen: true),
                NightChoice(box: boxes[2], night: night, region: region, stratum: "s", weight: 4, chosen: true),
            ] + boxes[3...].map { NightChoice(box: $0, night: night, region: region, stratum: "s", weight: 0, chosen: false) }
        try await store.keep(choices)
        try await store.keep(
            [
                NightObservation(box: boxes[0], night: night, observedMinimumC: -1), NightObservation(box: boxes[1], night: night, observedMinimumC: 2),
                NightObservation(box: boxes[2], night: night, observedMinimumC: -0.5),
            ], at: start + 200_000, givingUpBefore: 0)
        return store
    }

    static func api(_ store: InMemoryNotifierStore?) -> FrostboxAPI {
        var verification: (@Sendable (LocalDate?) async throws -> VerificationOverview)?
        if let store {
            verification = { since in try await VerificationOverview.load(from: store, since: since, thresholds: FrostThresholds()) }
        }
        let operations = AdminRoutes.Operations(
            stats: { AdminStats(devices: 0, subscriptions: 0, boxes: 0, places: 0, outboxPending: 0, forecastsCached: 0, recentRuns: []) },
            verification: verification)
        return FrostboxAPI(groups: [AdminRoutes(token: AdminToken(AdminRoutesTests.secret)!, operations: operations).add(to:)])
    }

    @Test("the scores, intervals and progress as counted; since filters; a bad date is a 400; nights off is a 409; no token a 401")
    func verification() async throws {
        let store = try await Self.store()
        try await AdminRoutesTests.run(Self.api(store)) { client in
            let response = try await client.send(.get, "/admin/verification", headers: bearer(AdminRoutesTests.secret))
            #expect(response.status == .ok)
            let json = response.json
            let progress = json["progress"] as? [String: Any]
            #expect(progress?["observed"] as? Int == 3 && progress?["skipped"] as? Int == 3)
            let overall = try #require(json["overall"] as? [String: Any])
            #expect(overall["nights"] as? Int == 3 && overall["weight"] as? Double == 6)
            let levels = try #require(overall["levels"] as? [[String: Any]])
            let freeze = try #require(levels.first { $0["level"] as? String == "freeze" })
            #expect((freeze["hits"] as? [String: Any])?["value"] as? Double == 1)
            #expect((freeze["false_alarms"] as? [String: Any])?["value"] as? Double == 1)
            let misses = try #require(freeze["misses"] as? [String: Any])
            #expect(misses["value"] as? Double == 4 && misses["low"] as? Double == 1 && misses["high"] as? Double == 4)
            // POD = 1 / (1 + 4); the Brier score of 0.25 against frost on 2 of 3 nights: (0.5625 + 0.0625 + 4 × 0.5625) / 6.
            #expect((freeze["pod"] as? [String: Any])?["value"] as? Double == 0.2)
            #expect(freeze["brier"] as? Double == 0.4792)
            // The region and its country at the mean centre of the three checked boxes (60°, 60.05°, 60.1° N; 25° E); leads have no place.
            let region = try #require((json["regions"] as? [[String: Any]])?.first)
            #expect(region["key"] as? String == "FI.18" && region["latitude"] as? Double == 60.05 && region["longitude"] as? Double == 25)
            let country = try #require((json["countries"] as? [[String: Any]])?.first)
            #expect(country["key"] as? String == "FI" && country["latitude"] as? Double == 60.05 && country["longitude"] as? Double == 25)
            let leads = try #require(json["leads"] as? [[String: Any]])
            #expect(leads.map { $0["key"] as? String } == ["next-night"] && leads.allSatisfy { $0["latitude"] == nil && $0["longitude"] == nil })
            let later = try await client.send(.get, "/admin/verification?since=2026-11-21", headers: bearer(AdminRoutesTests.secret))
            #expect((later.json["overall"] as? [String: Any])?["nights"] as? Int == 0 && later.json["since"] as? String == "2026-11-21")
            // A year before 1000 is answered as it was asked, four digits and all (a `date` in the document's sense).
            let early = try await client.send(.get, "/admin/verification?since=0104-01-11", headers: bearer(AdminRoutesTests.secret))
            #expect(early.status == .ok && early.json["since"] as? String == "0104-01-11")
            for bad in ["2026-02-30", "yesterday", "2026-1-01", ""] {
                let refused = try await client.send(.get, "/admin/verification?since=\(bad)", headers: bearer(AdminRoutesTests.secret))
                #expect(refused.status == .badRequest && refused.errorCode == "invalid_field", "\(bad)")
            }
            #expect(try await client.send(.get, "/admin/verification").status == .unauthorized)
        }
        try await AdminRoutesTests.run(Self.api(nil)) { client in
            let off = try await client.send(.get, "/admin/verification", headers: bearer(AdminRoutesTests.secret))
            #expect(off.status == .conflict && off.errorCode == "verification_off")
        }
    }
}
