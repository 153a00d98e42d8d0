import Foundation
import FrostboxApp
import FrostboxCore
import FrostboxDoubles
import FrostboxHTTP
import FrostboxSQLite
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// The status map's chance of frost (issue #47): each listed box's chances by level from its
/// cached ensemble, and the distribution behind them on `GET /admin/status/boxes/{key}`.
@Suite("Status page: chance of frost")
struct StatusChanceTests {
    static let secret = OperationsHarness.adminSecret
    static let now = Int64(Date().timeIntervalSince1970)
    /// Ten members, each at one temperature all night: 9 of 10 at or below 3 °C, 5 at or below
    /// 0 °C (the member at exactly 0 counts), 2 at or below −2 °C.
    static let memberLows: [Double] = [4, -3, 0.5, -2.5, 1, -1, 3, 0, 2, -0.5]

    static func harness(_ probability: ProbabilitySource = .spread) throws -> OperationsHarness {
        try OperationsHarness {
            $0.adminToken = AdminToken(Self.secret)
            $0.forecasts.probability = probability
        }
    }

    /// 72 hours from two hours ago on a UTC wall clock.
    static var hours: [ForecastHour] {
        let start = (now / 3_600 - 2) * 3_600
        return (0..<72).map { i in
            let time = start + Int64(i) * 3_600
            return ForecastHour(time: time, local: LocalDateTime(wallClockSeconds: time), temperatureC: nil)
        }
    }

    static func box(_ lat: Double, _ lon: Double) throws -> GeoBox { try Coordinate(latitude: lat, longitude: lon).box }

    /// Subscriptions in three boxes with forecasts: members in one, mean and spread in the
    /// second, no ensemble in the third.
    static func seed(_ harness: OperationsHarness) async throws -> (members: GeoBox, spread: GeoBox, none: GeoBox) {
        let database = harness.components.database.sqlite!
        let store = GRDBSubscriptionStore(database: database)
        let places: [(Double, Double, String)] = [(60.17, 24.94, "Helsinki"), (61.5, 23.75, "Tampere"), (65.0, 25.5, "Oulu")]
        for (lat, lon, name) in places {
            _ = try await store.subscribe(
                try DeviceToken("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"),
                to: NewSubscription(coordinate: try Coordinate(latitude: lat, longitude: lon), name: try PlaceName(name)), at: now)
        }
        let boxes = try places.map { try box($0.0, $0.1) }
        try await GRDBForecastCache(database: database).store(boxes.map { StatusRoutesTests.forecast($0, temperature: 1, fetchedAt: now - 600) })
        let count = hours.count
        try await harness.components.database.ensembleCache.store([
            EnsembleForecast(
                box: boxes[0], hours: hours, values: .members(memberLows.map { Array(repeating: $0, count: count) }), model: "icon_seamless",
                fetchedAt: now - 1_200, runs: [ModelRun(model: "icon_seamless", initialisedAt: 1_764_288_000, availableAt: 1_764_300_000)]),
            EnsembleForecast(
                box: boxes[1], hours: hours, values: .spread(mean: Array(repeating: -1, count: count), spread: Array(repeating: 0, count: count)),
                model: "ecmwf_ifs025_ensemble_mean", fetchedAt: now - 600),
        ])
        return (boxes[0], boxes[1], boxes[2])
    }

    @Test("the map lists each box's chance per level for tonight and tomorrow, with the ensemble's model and age")
    func mapChances() async throws {
        let harness = try Self.harness()
        let boxes = try await Self.seed(harness)
        try await harness.test { client in
            let map = try await client.send(.get, "/admin/status/boxes?west=20&south=59&east=31&north=66&zoom=9", headers: bearer(Self.secret))
            #expect(map.status == .ok)
            #expect(map.json["thresholds_c"] as? [String: Double] == ["frost-risk": 3, "freeze": 0, "hard-freeze": -2])
            let listed = try #require(map.json["boxes"] as? [[String: Any]])
            let byKey = Dictionary(uniqueKeysWithValues: listed.map { (Int64($0["key"] as! Int), $0) })
            let members = try #require(byKey[boxes.members.key])
            for night in ["tonight", "tomorrow"] {
                let chance = try #require((members[night] as? [String: Any])?["chance"] as? [String: Any], "\(night)")
                #expect(chance["by_level"] as? [String: Double] == ["frost-risk": 0.9, "freeze": 0.5, "hard-freeze": 0.2])
                #expect(chance["members"] as? Int == 10)
                // The list leaves the minima to the box's own answer.
                #expect(chance["member_minima_c"] == nil)
            }
            let source = try #require(members["chance"] as? [String: Any])
            #expect(source["model"] as? String == "icon_seamless")
            #expect((1_200...1_500).contains(source["age_s"] as? Int ?? -1))
            #expect(source["runs"] as? [String] == ["icon_seamless@2025-11-28T00:00:00Z"])
            let spread = try #require((byKey[boxes.spread.key]?["tonight"] as? [String: Any])?["chance"] as? [String: Any])
            // Spread 0: a certain forecast at the mean.
            #expect(spread["by_level"] as? [String: Double] == ["frost-risk": 1, "freeze": 1, "hard-freeze": 0])
            #expect(spread["mean_c"] as? Double == -1 && spread["spread_c"] as? Double == 0)
            #expect(spread["members"] == nil)
            let bare = try #require(byKey[boxes.none.key])
            #expect(bare["chance"] == nil && (bare["tonight"] as? [String: Any])?["chance"] == nil)
            #expect((bare["tonight"] as? [String: Any])?["level"] as? String == "frost-risk")
        }
    }

    @Test("a box's own answer has every night ahead with the member minima or the mean and spread; bad keys are 400, empty boxes 404")
    func boxDetail() async throws {
        let harness = try Self.harness()
        let boxes = try await Self.seed(harness)
        try await harness.test { client in
            let detail = try await client.send(.get, "/admin/status/boxes/\(boxes.members.key)", headers: bearer(Self.secret))
            #expect(detail.status == .ok)
            #expect(detail.headers[.cacheControl] == "no-store")
            #expect(detail.json["box"] as? String == boxes.members.description)
            #expect(detail.json["names"] as? [String] == ["Helsinki"])
            let nights = try #require(detail.json["nights"] as? [[String: Any]])
            // 72 hours from two hours ago on UTC: three or four nights, every one covered.
            #expect(nights.count >= 3)
            for night in nights {
                let chance = try #require(night["chance"] as? [String: Any])
                #expect(chance["member_minima_c"] as? [Double] == Self.memberLows.sorted())
            }
            #expect((detail.json["chance"] as? [String: Any])?["model"] as? String == "icon_seamless")
            let spread = try await client.send(.get, "/admin/status/boxes/\(boxes.spread.key)", headers: bearer(Self.secret))
            let first = try #require((spread.json["nights"] as? [[String: Any]])?.first?["chance"] as? [String: Any])
            #expect(first["mean_c"] as? Double == -1 && first["member_minima_c"] == nil)
            let bare = try await client.send(.get, "/admin/status/boxes/\(boxes.none.key)", headers: bearer(Self.secret))
            #expect(bare.status == .ok && bare.json["chance"] == nil)
            #expect((bare.json["nights"] as? [[String: Any]])?.isEmpty == false)

            let empty = try Self.box(0, 0)
            let missing = try await client.send(.get, "/admin/status/boxes/\(empty.key)", headers: bearer(Self.secret))
            #expect(missing.status == .notFound && missing.errorCode == "not_found")
            for bad in ["abc", "-1", "25927200", "99999999999", "1.5"] {
                let answer = try await client.send(.get, "/admin/status/boxes/\(bad)", headers: bearer(Self.secret))
                #expect(answer.status == .badRequest, "\(bad)")
                #expect(answer.errorCode == "invalid_field", "\(bad)")
            }
            let anonymous = try await client.send(.get, "/admin/status/boxes/\(boxes.members.key)", headers: HTTPFields())
            #expect(anonymous.status == .unauthorized)
        }
    }

    @Test("with forecast.probability off the map shows verdicts alone, even over cached ensembles")
    func probabilityOff() async throws {
        let harness = try Self.harness(.off)
        let boxes = try await Self.seed(harness)
        try await harness.test { client in
            let map = try await client.send(.get, "/admin/status/boxes?west=20&south=59&east=31&north=66&zoom=9", headers: bearer(Self.secret))
            let listed = try #require(map.json["boxes"] as? [[String: Any]])
            #expect(listed.count == 3)
            #expect(listed.allSatisfy { $0["chance"] == nil && ($0["tonight"] as? [String: Any])?["chance"] == nil })
            let detail = try await client.send(.get, "/admin/status/boxes/\(boxes.members.key)", headers: bearer(Self.secret))
            #expect(detail.status == .ok && detail.json["chance"] == nil)
        }
    }
}
