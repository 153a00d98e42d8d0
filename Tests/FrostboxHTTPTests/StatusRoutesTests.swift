import Foundation
import FrostboxApp
import FrostboxCore
import FrostboxDoubles
import FrostboxHTTP
import FrostboxSQLite
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import NIOCore
import Testing

@Suite("Status page")
struct StatusRoutesTests {
    static let secret = OperationsHarness.adminSecret

    static func basic(_ user: String, _ password: String) -> HTTPFields {
        var headers = HTTPFields()
        headers[.authorization] = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        return headers
    }

    static func harness() throws -> OperationsHarness {
        try OperationsHarness { $0.adminToken = AdminToken(Self.secret) }
    }

    static var now: Int64 { Int64(Date().timeIntervalSince1970) }

    /// 72 hours from two hours ago on a UTC wall clock, every hour at `temperature`, clear and calm.
    static func forecast(_ box: GeoBox, temperature: Double, fetchedAt: Int64) -> BoxForecast {
        let start = (now / 3_600 - 2) * 3_600
        let hours = (0..<72).map { i -> ForecastHour in
            let time = start + Int64(i) * 3_600
            return ForecastHour(time: time, local: LocalDateTime(wallClockSeconds: time), temperatureC: temperature, cloudCoverPercent: 0, windSpeedKmh: 0)
        }
        return BoxForecast(
            box: box, timezone: "UTC", utcOffsetSeconds: 0, gridLatitude: box.latitude, gridLongitude: box.longitude, elevation: nil, fetchedAt: fetchedAt,
            hours: hours)
    }

    @Test("the page and its JSON take the token as Basic password or Bearer; anything else is a 401 that asks a browser to log in")
    func authorization() async throws {
        try await Self.harness().test { client in
            for headers in [Self.basic("admin", Self.secret), Self.basic("", Self.secret), bearer(Self.secret)] {
                let page = try await client.send(.get, "/status", headers: headers)
                #expect(page.status == .ok)
                #expect(page.headers[.contentType] == "text/html; charset=utf-8")
                // Its own files only, and never framed by another site.
                let policy = page.headers[.contentSecurityPolicy] ?? ""
                #expect(policy.contains("frame-ancestors 'none'") && policy.contains("script-src 'self';"), "\(policy)")
                #expect(String(buffer: page.body).contains("<canvas id=\"map\""))
                for path in ["/admin/status/summary", "/admin/status/boxes", "/admin/stats"] {
                    let answer = try await client.send(.get, path, headers: headers)
                    #expect(answer.status == .ok, "\(path): \(String(buffer: answer.body))")
                }
            }
            var noScheme = HTTPFields()
            noScheme[.authorization] = Self.secret
            for headers in [HTTPFields(), Self.basic("admin", "wrong-token-0123456789"), Self.basic(Self.secret, ""), bearer("nope"), noScheme] {
                let page = try await client.send(.get, "/status", headers: headers)
                #expect(page.status == .unauthorized)
                #expect(page.headers[.wwwAuthenticate]?.hasPrefix("Basic realm=") == true)
                #expect(page.errorCode == "unauthorized")
                for path in ["/admin/status/summary", "/admin/status/boxes?zoom=3"] {
                    let json = try await client.send(.get, path, headers: headers)
                    #expect(json.status == .unauthorized, "\(path)")
                    #expect(json.errorCode == "unauthorized")
                }
            }
        }
    }

    @Test("without an admin token the page, its files and its JSON do not exist")
    func absentWithoutToken() async throws {
        let off = try OperationsHarness()
        #expect(!off.api.registry.routes.contains { $0.path.hasPrefix("/status") || $0.path.hasPrefix("/admin") })
        try await off.test { client in
            for path in ["/status", "/status/status.js", "/status/favicon.svg", "/admin/status/summary", "/admin/status/boxes"] {
                let response = try await client.send(.get, path, headers: Self.basic("admin", Self.secret))
                #expect(response.status == .notFound, "\(path)")
            }
        }
    }

    @Test("the files are served with their types, a validator and no-cache; unknown names are 404")
    func files() async throws {
        try await Self.harness().test { client in
            let expected = [
                "status.js": "text/javascript; charset=utf-8", "status.css": "text/css; charset=utf-8",
                "favicon.svg": "image/svg+xml", "land.json": "application/json; charset=utf-8",
            ]
            for (name, type) in expected {
                let response = try await client.send(.get, "/status/\(name)")
                #expect(response.status == .ok, "\(name)")
                #expect(response.headers[.contentType] == type)
                #expect(response.headers[.cacheControl] == "no-cache")
                #expect(response.body.readableBytes > 100)
                let etag = try #require(response.headers[.eTag])
                var conditional = HTTPFields()
                conditional[.ifNoneMatch] = etag
                let again = try await client.send(.get, "/status/\(name)", headers: conditional)
                #expect(again.status == .notModified)
                #expect(again.body.readableBytes == 0)
            }
            let land = try await client.send(.get, "/status/land.json")
            let rings = try #require(land.json["rings"] as? [[Int]])
            #expect(rings.count > 100)
            #expect(land.json["scale"] as? Int == 10)
            for name in ["nope.js", "status.html", "..%2Fopenapi.yaml"] {
                #expect(try await client.send(.get, "/status/\(name)").status == .notFound, "\(name)")
            }
            // The page refers to every file it needs by its served path.
            let page = String(buffer: try await client.send(.get, "/status", headers: bearer(Self.secret)).body)
            for name in ["status.js", "status.css", "favicon.svg"] { #expect(page.contains("/status/\(name)")) }
        }
    }

    @Test(
        "bad viewports are 400 JSON",
        arguments: [
            "zoom=x", "zoom=21", "zoom=-1", "west=abc", "south=-91", "north=95", "west=-600", "east=541", "west=nan", "east=inf",
            "east=", "south=&north=10", "zoom=", "west=&east=&south=&north=&zoom=",
        ])
    func badViewport(query: String) async throws {
        try await Self.harness().test { client in
            let response = try await client.send(.get, "/admin/status/boxes?\(query)", headers: bearer(Self.secret))
            #expect(response.status == .badRequest)
            #expect(response.errorCode == "invalid_field")
        }
    }

    @Test(
        "every viewport within the document's ranges is answered",
        arguments: ["west=-180&east=-539", "south=10&north=5", "west=-540&east=540", "west=10&east=5", "west=540&east=-540&zoom=20"])
    func lenientViewport(query: String) async throws {
        try await Self.harness().test { client in
            let response = try await client.send(.get, "/admin/status/boxes?\(query)", headers: bearer(Self.secret))
            #expect(response.status == .ok)
        }
    }

    @Test("boxes on a seeded database: classes, details, cells, and the antimeridian and poles")
    func seededBoxes() async throws {
        let harness = try Self.harness()
        let database = harness.components.database.sqlite!
        let now = Self.now
        let store = GRDBSubscriptionStore(database: database)
        func subscribe(_ token: String, _ lat: Double, _ lon: Double, _ name: String) async throws {
            _ = try await store.subscribe(
                try DeviceToken(token), to: NewSubscription(coordinate: try Coordinate(latitude: lat, longitude: lon), name: try PlaceName(name)), at: now)
        }
        let a = "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", b = "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
        try await subscribe(a, 60.17, 24.94, "Helsinki")  // freeze
        try await subscribe(b, 60.17, 24.94, "Kotikatu")  // same box, second device
        try await subscribe(a, 60.45, 22.25, "Turku")  // hard freeze
        try await subscribe(a, 61.5, 23.75, "Tampere")  // frost risk
        try await subscribe(a, 65.0, 25.5, "Oulu")  // none
        try await subscribe(a, 62.6, 29.75, "Joensuu")  // no forecast
        try await subscribe(a, 63.1, 21.6, "Vaasa")  // fetch failing
        try await subscribe(a, -16.5, 179.99, "Labasa")  // box 180°, freeze
        try await subscribe(b, -16.5, -179.95, "Vunisea")  // box −179.95°, none
        try await subscribe(a, 90, 0, "North Pole")  // no forecast
        try await subscribe(b, -90, 0, "South Pole")  // hard freeze
        func box(_ lat: Double, _ lon: Double) throws -> GeoBox { try Coordinate(latitude: lat, longitude: lon).box }
        let cache = GRDBForecastCache(database: database)
        try await cache.store([
            Self.forecast(try box(60.17, 24.94), temperature: -1, fetchedAt: now - 600),
            Self.forecast(try box(60.45, 22.25), temperature: -5, fetchedAt: now - 600),
            Self.forecast(try box(61.5, 23.75), temperature: 2, fetchedAt: now - 600),
            Self.forecast(try box(65.0, 25.5), temperature: 8, fetchedAt: now - 7_200),
            Self.forecast(try box(63.1, 21.6), temperature: -1, fetchedAt: now - 90_000),
            Self.forecast(try box(-16.5, 179.99), temperature: -1, fetchedAt: now - 600),
            Self.forecast(try box(-16.5, -179.95), temperature: 10, fetchedAt: now - 600),
            Self.forecast(try box(-90, 0), temperature: -30, fetchedAt: now - 600),
        ])
        try await harness.components.notifier.store.recordFetches(succeeded: [try box(60.17, 24.94)], failed: [try box(63.1, 21.6): "timeout"], at: now)

        let helsinkiKey = try box(60.17, 24.94).key
        try await harness.test { client in
            // Zoomed in on southern Finland: single boxes with their details.
            let finland = try await client.send(.get, "/admin/status/boxes?west=20&south=59&east=31&north=66&zoom=9", headers: bearer(Self.secret))
            #expect(finland.status == .ok)
            #expect(finland.headers[.cacheControl] == "no-store")
            #expect(finland.json["mode"] as? String == "boxes")
            #expect(finland.json["total_boxes"] as? Int == 10)
            #expect(finland.json["boxes_in_view"] as? Int == 6)
            let classes = try #require(finland.json["classes"] as? [String: Int])
            #expect(classes == ["none": 2, "frost-risk": 1, "freeze": 2, "hard-freeze": 2, "no-forecast": 2, "fetch-failing": 1])
            let boxes = try #require(finland.json["boxes"] as? [[String: Any]])
            let byName = Dictionary(uniqueKeysWithValues: boxes.map { (($0["names"] as? [String])?.first ?? "?", $0) })
            #expect(
                byName.mapValues { $0["class"] as? String } == [
                    "Helsinki": "freeze", "Turku": "hard-freeze", "Tampere": "frost-risk", "Oulu": "none", "Joensuu": "no-forecast", "Vaasa": "fetch-failing",
                ])
            let helsinki = try #require(byName["Helsinki"])
            #expect(helsinki["box"] as? String == "60.15#24.95")
            #expect(helsinki["key"] as? Int == Int(helsinkiKey))
            #expect(helsinki["lat"] as? Double == 60.15)
            #expect(helsinki["names"] as? [String] == ["Helsinki", "Kotikatu"])
            #expect(helsinki["subscribers"] as? Int == 2)
            let age = try #require(helsinki["forecast_age_s"] as? Int)
            // Seeded 600 s before the request; a whole test run on two busy cores took 64 s to get there once.
            #expect((600...1_200).contains(age))
            let tonight = try #require(helsinki["tonight"] as? [String: Any])
            #expect(tonight["level"] as? String == "freeze")
            #expect(tonight["minimum_c"] as? Double == -1)
            #expect((helsinki["tomorrow"] as? [String: Any])?["level"] as? String == "freeze")
            #expect(byName["Joensuu"]?["forecast_age_s"] == nil)
            #expect(byName["Joensuu"]?["tonight"] == nil)
            #expect(byName["Vaasa"]?["fetch_failure"] as? String == "timeout")

            // Across the antimeridian: both Fiji boxes, nothing else.
            let fiji = try await client.send(.get, "/admin/status/boxes?west=175&south=-20&east=185&north=-10&zoom=9", headers: bearer(Self.secret))
            let fijiBoxes = try #require(fiji.json["boxes"] as? [[String: Any]])
            #expect(Set(fijiBoxes.compactMap { $0["box"] as? String }) == ["-16.50#180.00", "-16.50#-179.95"])
            #expect(Set(fijiBoxes.compactMap { $0["class"] as? String }) == ["freeze", "none"])
            let westward = try await client.send(.get, "/admin/status/boxes?west=-185&south=-20&east=-175&north=-10&zoom=9", headers: bearer(Self.secret))
            #expect((westward.json["boxes"] as? [[String: Any]])?.count == 2)

            // The whole world: cells, every box counted once, the poles included.
            let world = try await client.send(.get, "/admin/status/boxes", headers: bearer(Self.secret))
            #expect(world.json["mode"] as? String == "cells")
            #expect(world.json["cell_degrees"] as? Double == 12.8)
            let cells = try #require(world.json["cells"] as? [[String: Any]])
            #expect(cells.compactMap { $0["boxes"] as? Int }.reduce(0, +) == 10)
            #expect(cells.compactMap { $0["subscribers"] as? Int }.reduce(0, +) == 11)
            let pole = try #require(cells.first { $0["lat"] as? Double == -90 })
            #expect(pole["class"] as? String == "hard-freeze")
            #expect(cells.contains { $0["lat"] as? Double == 90 && $0["class"] as? String == "no-forecast" })
            // Per-class counts over the cells add up to the world's, and each cell shows its most severe class.
            let severity = ["none": 0, "no-forecast": 1, "fetch-failing": 2, "frost-risk": 3, "freeze": 4, "hard-freeze": 5]
            var summed: [String: Int] = [:]
            for cell in cells {
                let counts = try #require(cell["classes"] as? [String: Int])
                summed.merge(counts, uniquingKeysWith: +)
                #expect(cell["class"] as? String == counts.keys.max { severity[$0]! < severity[$1]! })
            }
            #expect(summed == ["none": 2, "frost-risk": 1, "freeze": 2, "hard-freeze": 2, "no-forecast": 2, "fetch-failing": 1])
            for cell in cells {
                let lon = try #require(cell["lon"] as? Double)
                #expect(lon > -180 && lon <= 180)
            }
        }
    }

    @Test("the summary shows the seeded runs, quota, outbox, APNs and places")
    func summary() async throws {
        let harness = try Self.harness()
        let store = harness.components.notifier.store
        let now = Self.now
        for (offset, delivered) in [(7_200, 40), (3_600, 12)] {
            var run = NotifyRunSummary(id: try await store.startRun(at: now - Int64(offset)), startedAt: now - Int64(offset))
            run.status = .completed
            run.finishedAt = now - Int64(offset) + 30
            run.boxes = 100
            run.alertsPlanned = delivered + 3
            run.alertsDelivered = delivered
            run.failed = [.invalidToken: 2, .temporary: 1]
            run.durationMilliseconds = 30_000 + delivered
            try await store.finishRun(run)
        }
        let ledger = harness.components.forecasts.ledger
        try await harness.test { client in
            // Charged right before the request, on the wall clock the summary reads: the
            // minute window must still hold it when the answer is made, on a loaded machine too.
            guard case .granted = try await ledger.reserve(units: 100, weightPerUnit: 1, minimumUnits: 1, at: Self.now) else {
                Issue.record("the ledger refused the seed charge")
                return
            }
            let response = try await client.send(.get, "/admin/status/summary", headers: Self.basic("ops", Self.secret))
            #expect(response.status == .ok, "\(String(buffer: response.body))")
            #expect(response.headers[.cacheControl] == "no-store")
            let runs = try #require(response.json["runs"] as? [[String: Any]])
            #expect(runs.count == 2)
            #expect(runs.first?["delivered"] as? Int == 12)
            #expect(runs.first?["planned"] as? Int == 15)
            #expect(runs.first?["failed"] as? Int == 3)
            #expect(runs.first?["duration_ms"] as? Int == 30_012)
            #expect((runs.first?["failed_by_class"] as? [String: Int])?["invalid-token"] == 2)
            let quota = try #require(response.json["quota"] as? [String: Any])
            let windows = try #require(quota["windows"] as? [[String: Any]])
            #expect(windows.compactMap { $0["window"] as? String } == ["minute", "hour", "day"])
            #expect(windows.compactMap { $0["used"] as? Double } == [100, 100, 100])
            #expect(windows.compactMap { $0["budget"] as? Double } == [600, 5_000, 10_000])
            let outbox = try #require(response.json["outbox"] as? [String: Any])
            #expect(outbox["pending"] as? Int == 0)
            #expect((outbox["recent_failures_by_class"] as? [String: Int])?["invalid-token"] == 4)
            #expect((outbox["recent_failures_by_class"] as? [String: Int])?["temporary"] == 2)
            let push = try #require(response.json["push"] as? [String: Any])
            #expect(push["connections"] as? Int == 0)
            #expect(push["sent"] as? Int == 0)
            #expect((push["pacing"] as? [Any])?.isEmpty == true)
            // The first name, kept one release beside it.
            let apns = try #require(response.json["apns"] as? [String: Any])
            #expect(apns["sent"] as? Int == 0)
            let places = try #require(response.json["places"] as? [String: Any])
            #expect(places["stored"] as? Int == 0)
            let counts = try #require(response.json["counts"] as? [String: Any])
            #expect(counts["devices"] as? Int == 0)
            #expect((counts["devices_by_platform"] as? [String: Int])?.isEmpty == true)
        }
    }

    @Test("the board decodes a box's forecast again only when a newer one was fetched")
    func boardCachesNights() async throws {
        let box = GeoBox(latitudeIndex: 1200, longitudeIndex: 500)
        let now = Self.now
        let source = InMemoryBoxMapSource([SubscribedBox(box: box, subscribers: 1, forecastFetchedAt: now - 60)])
        let cache = InMemoryForecastCache([Self.forecast(box, temperature: -1, fetchedAt: now - 60)])
        let board = StatusBoard(source: source, forecasts: cache, rule: .default)
        #expect(try await board.entries(now: now).map(\.mapClass) == [.freeze])
        // Same fetch time: the remembered nights stand, even though the cache now says otherwise.
        try await cache.store([Self.forecast(box, temperature: -1, fetchedAt: now - 60).with(temperature: 9)])
        #expect(try await board.entries(now: now).map(\.mapClass) == [.freeze])
        // A newer fetch is read again.
        try await cache.store([Self.forecast(box, temperature: -5, fetchedAt: now)])
        source.set([SubscribedBox(box: box, subscribers: 1, forecastFetchedAt: now)])
        #expect(try await board.entries(now: now).map(\.mapClass) == [.hardFreeze])
        // Purged from the cache: no forecast, not the old one.
        source.set([SubscribedBox(box: box, subscribers: 1, forecastFetchedAt: nil)])
        #expect(try await board.entries(now: now).map(\.mapClass) == [.noForecast])
        source.addNames(["Helsinki", "Espoo"], in: box)
        let map = try await board.map(try BoxMapViewport(west: 24, south: 59, east: 26, north: 61, zoom: 10), now: now)
        #expect(map.boxes.first?.names == ["Espoo", "Helsinki"])
    }
}

extension BoxForecast {
    /// The same forecast with every hour at `temperature`.
    func with(temperature: Double) -> BoxForecast {
        var copy = self
        copy.hours = hours.map { hour in
            var hour = hour
            hour.temperatureC = temperature
            return hour
        }
        return copy
    }
}
