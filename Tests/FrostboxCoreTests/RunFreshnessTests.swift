import FrostboxCore
import Testing

@Suite("Run freshness: a cached forecast is fetched again only for a new model run")
struct RunFreshnessTests {
    static let now: Int64 = 1_774_000_000
    static let box = GeoBox(latitudeIndex: 1_040, longitudeIndex: 200)
    let rule = RunFreshness(consistencyDelaySeconds: 600, maximumAgeSeconds: 43_200, fallback: ForecastFreshness(ttlSeconds: 3_600))

    static func forecast(fetchedAt: Int64, runs: [ModelRun] = []) -> BoxForecast {
        BoxForecast(
            box: box, timezone: "Europe/Berlin", utcOffsetSeconds: 3_600, gridLatitude: 52, gridLongitude: 10, elevation: nil, fetchedAt: fetchedAt,
            hours: [], runs: runs)
    }

    static func run(_ model: String, availableAt: Int64) -> ModelRun {
        ModelRun(model: model, initialisedAt: availableAt - 5_400, availableAt: availableAt)
    }

    @Test("no cached forecast: fetch")
    func missing() {
        #expect(rule.verdict(for: nil, dependsOn: ["icon_d2"], latest: [:], now: Self.now) == .stale(.missing))
    }

    @Test("the run it came from is still the latest: current, however old within the maximum age")
    func sameRun() {
        let run = Self.run("icon_d2", availableAt: Self.now - 10_000)
        let cached = Self.forecast(fetchedAt: Self.now - 9_000, runs: [run])
        #expect(rule.verdict(for: cached, dependsOn: ["icon_d2"], latest: ["icon_d2": run], now: Self.now) == .currentByRun)
    }

    @Test("a newer run of a model it depends on, out for the consistency delay: fetch; within the delay: not yet")
    func newerRun() {
        let old = Self.run("icon_d2", availableAt: Self.now - 10_000)
        let cached = Self.forecast(fetchedAt: Self.now - 9_000, runs: [old])
        let new = Self.run("icon_d2", availableAt: Self.now - 600)
        #expect(rule.verdict(for: cached, dependsOn: ["icon_d2"], latest: ["icon_d2": new], now: Self.now) == .stale(.newRun(model: "icon_d2")))
        let tooRecent = Self.run("icon_d2", availableAt: Self.now - 599)
        #expect(rule.verdict(for: cached, dependsOn: ["icon_d2"], latest: ["icon_d2": tooRecent], now: Self.now) == .currentByRun)
    }

    @Test("a new run of a model the box does not depend on: current")
    func unrelatedModel() {
        let run = Self.run("icon_d2", availableAt: Self.now - 10_000)
        let cached = Self.forecast(fetchedAt: Self.now - 9_000, runs: [run])
        let latest = ["icon_d2": run, "gfs_hrrr": Self.run("gfs_hrrr", availableAt: Self.now - 700)]
        #expect(rule.verdict(for: cached, dependsOn: ["icon_d2"], latest: latest, now: Self.now) == .currentByRun)
    }

    @Test("older than the maximum age: fetch, whatever the runs say")
    func maximumAge() {
        let run = Self.run("icon_d2", availableAt: Self.now - 50_000)
        let cached = Self.forecast(fetchedAt: Self.now - 43_200, runs: [run])
        #expect(rule.verdict(for: cached, dependsOn: ["icon_d2"], latest: ["icon_d2": run], now: Self.now) == .stale(.maximumAge))
        let younger = Self.forecast(fetchedAt: Self.now - 43_199, runs: [run])
        #expect(rule.verdict(for: younger, dependsOn: ["icon_d2"], latest: ["icon_d2": run], now: Self.now) == .currentByRun)
    }

    @Test("runs not recorded (fetched while metadata was down): compared by fetch time")
    func unrecordedRuns() {
        let run = Self.run("icon_d2", availableAt: Self.now - 5_000)
        let before = Self.forecast(fetchedAt: Self.now - 4_401)
        #expect(rule.verdict(for: before, dependsOn: ["icon_d2"], latest: ["icon_d2": run], now: Self.now) == .stale(.newRun(model: "icon_d2")))
        let after = Self.forecast(fetchedAt: Self.now - 4_400)
        #expect(rule.verdict(for: after, dependsOn: ["icon_d2"], latest: ["icon_d2": run], now: Self.now) == .currentByRun)
    }

    @Test("a model whose latest run is unknown: the time-based TTL decides, unless a known model has a newer run")
    func unknownFallsBackToTTL() {
        let run = Self.run("icon_d2", availableAt: Self.now - 10_000)
        let recent = Self.forecast(fetchedAt: Self.now - 3_599, runs: [run])
        let old = Self.forecast(fetchedAt: Self.now - 3_600, runs: [run])
        let latest = ["icon_d2": run]
        #expect(rule.verdict(for: recent, dependsOn: ["icon_d2", "icon_eu"], latest: latest, now: Self.now) == .freshByTTL)
        #expect(rule.verdict(for: old, dependsOn: ["icon_d2", "icon_eu"], latest: latest, now: Self.now) == .stale(.ttlExpired))
        let newer = ["icon_d2": Self.run("icon_d2", availableAt: Self.now - 1_000)]
        #expect(rule.verdict(for: recent, dependsOn: ["icon_d2", "icon_eu"], latest: newer, now: Self.now) == .stale(.newRun(model: "icon_d2")))
        #expect(rule.verdict(for: recent, dependsOn: [], latest: latest, now: Self.now) == .freshByTTL)
    }

    @Test("a forecast records each model's latest run out for the consistency delay at its fetch, by model name")
    func includedRuns() {
        let d2 = Self.run("icon_d2", availableAt: Self.now - 600)
        let eu = Self.run("icon_eu", availableAt: Self.now - 599)
        let global = Self.run("icon_global", availableAt: Self.now - 20_000)
        let runs = rule.runs(
            includedAt: Self.now, models: ["icon_global", "icon_eu", "icon_d2"], latest: ["icon_d2": d2, "icon_eu": eu, "icon_global": global])
        #expect(runs == [d2, global])
    }

    @Test("the cache is read back as far as either rule keeps a forecast")
    func readWindow() {
        #expect(rule.freshSince(now: Self.now) == Self.now - 43_199)
        let shortMaximum = RunFreshness(maximumAgeSeconds: 60, fallback: ForecastFreshness(ttlSeconds: 3_600))
        #expect(shortMaximum.freshSince(now: Self.now) == Self.now - 3_599)
    }
}

@Suite("Model dependencies: concrete models, or best_match's watch list by area")
struct ModelDependencyTests {
    static let berlin = Coordinate(uncheckedLatitude: 52.52, longitude: 13.40).box
    static let chicago = Coordinate(uncheckedLatitude: 41.88, longitude: -87.63).box
    static let sydney = Coordinate(uncheckedLatitude: -33.87, longitude: 151.21).box
    static let fiji = Coordinate(uncheckedLatitude: -17.7, longitude: 178.0).box
    static let samoa = Coordinate(uncheckedLatitude: -13.8, longitude: -172.0).box

    @Test("a watch list parses its text form back and forth; the first region holding a box gives its models")
    func watchList() throws {
        let list = try ModelWatchList(parsing: " 43.2,-3.9,58.1,20.3 = icon_d2, icon_eu ;21,-134,53,-60=gfs_hrrr; *=icon_global;")
        #expect(list.regions.count == 3)
        #expect(try ModelWatchList(parsing: list.description) == list)
        #expect(list.models(for: Self.berlin) == ["icon_d2", "icon_eu"])
        #expect(list.models(for: Self.chicago) == ["gfs_hrrr"])
        #expect(list.models(for: Self.sydney) == ["icon_global"])
        #expect(try ModelWatchList(parsing: "43.2,-3.9,58.1,20.3=icon_d2").models(for: Self.sydney).isEmpty)
    }

    @Test("a region whose west edge lies east of its east edge crosses the antimeridian")
    func antimeridian() throws {
        let list = try ModelWatchList(parsing: "-30,170,0,-160=pacific")
        #expect(list.models(for: Self.fiji) == ["pacific"])
        #expect(list.models(for: Self.samoa) == ["pacific"])
        #expect(list.models(for: Self.sydney).isEmpty)
    }

    @Test(
        "bad watch lists are refused with the entry at fault",
        arguments: ["", " ; ", "*=ICON", "icon_d2", "1,2,3=icon_d2", "60,0,50,10=icon_d2", "91,0,92,1=a", "0,0,1,q=a", "*=", "*=a,B"])
    func refused(_ text: String) {
        #expect(throws: ValidationError.self) { try ModelWatchList(parsing: text) }
    }

    @Test("concrete models: the same for every box, without repeats")
    func concrete() {
        let models = ForecastModels.models(["icon_d2", "icon_eu", "icon_d2"])
        #expect(models.models(for: Self.berlin) == ["icon_d2", "icon_eu"])
        #expect(models.models(for: Self.sydney) == ["icon_d2", "icon_eu"])
    }
}
