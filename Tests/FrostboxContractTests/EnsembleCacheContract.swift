import FrostboxCore
import FrostboxDoubles
import FrostboxPostgres
import FrostboxSQLite
import TestPostgres
import Testing

/// Every `EnsembleCache` there is (issue #47).
enum EnsembleCacheImplementation: String, ContractImplementation {
    case grdb, inMemory, postgres

    func make(in directory: TemporaryDirectory) async throws -> any EnsembleCache {
        switch self {
        case .postgres: PostgresEnsembleCache(database: try await ContractPostgres.freshDatabase())
        case .grdb: GRDBEnsembleCache(database: try FrostboxDatabase(path: directory.databasePath))
        case .inMemory: InMemoryEnsembleCache()
        }
    }
}

@Suite("EnsembleCache contract", .backgroundWorkScoped)
struct EnsembleCacheContract {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "frostbox-contract-ensembles")
    }

    static let helsinki = Coordinate(uncheckedLatitude: 60.19, longitude: 25.01).box
    static let antimeridian = Coordinate(uncheckedLatitude: -16.5, longitude: -179.99).box

    /// Hours over Helsinki's spring DST change.
    static func hours(_ count: Int) -> [ForecastHour] {
        let start: Int64 = 1_743_199_200
        return (0..<count).map { i in
            let time = start + Int64(i) * 3_600
            let offset: Int64 = time >= 1_743_296_400 ? 10_800 : 7_200
            return ForecastHour(time: time, local: LocalDateTime(wallClockSeconds: time + offset), temperatureC: nil)
        }
    }

    /// 51 members over 48 hours, tenths from −30 °C to +30 °C, some missing.
    static func members(_ box: GeoBox, fetchedAt: Int64) -> EnsembleForecast {
        var values: [[Double?]] = []
        for member in 0..<51 {
            var series: [Double?] = []
            for hour in 0..<48 {
                let tenths: Int = (member * 37 + hour * 11) % 601 - 300
                series.append((member + hour) % 13 == 0 ? nil : Double(tenths) / 10)
            }
            values.append(series)
        }
        return EnsembleForecast(
            box: box, hours: hours(48), values: .members(values), model: "ecmwf_ifs025", fetchedAt: fetchedAt,
            runs: [ModelRun(model: "ecmwf_ifs025", initialisedAt: 1_743_120_000, availableAt: 1_743_145_000)])
    }

    @Test("stored ensembles come back whole: every member, missing values, hours across DST, model and runs", arguments: EnsembleCacheImplementation.available)
    func roundTrip(_ implementation: EnsembleCacheImplementation) async throws {
        let cache = try await implementation.make(in: directory)
        let members = Self.members(Self.helsinki, fetchedAt: 1_000)
        let spread = EnsembleForecast(
            box: Self.antimeridian, hours: Self.hours(3), values: .spread(mean: [-0.4, nil, 1.5], spread: [1.2, 0, nil]),
            model: "ecmwf_ifs025_ensemble_mean", fetchedAt: 1_200)
        try await cache.store([members, spread])
        let found = try await cache.ensembles(for: [Self.helsinki, Self.antimeridian], fetchedSince: 0)
        #expect(found == [Self.helsinki: members, Self.antimeridian: spread])
    }

    @Test("only entries fetched since the given second are served; a newer one replaces; purge drops the old", arguments: EnsembleCacheImplementation.available)
    func freshnessAndPurge(_ implementation: EnsembleCacheImplementation) async throws {
        let cache = try await implementation.make(in: directory)
        try await cache.store([Self.members(Self.helsinki, fetchedAt: 1_000), Self.members(Self.antimeridian, fetchedAt: 2_000)])
        #expect(try await cache.ensembles(for: [Self.helsinki, Self.antimeridian], fetchedSince: 1_500).keys.sorted { $0.key < $1.key } == [Self.antimeridian])
        try await cache.store([Self.members(Self.helsinki, fetchedAt: 3_000)])
        #expect(try await cache.ensembles(for: [Self.helsinki], fetchedSince: 2_500)[Self.helsinki]?.fetchedAt == 3_000)
        #expect(try await cache.purge(fetchedBefore: 2_500) == 1)
        #expect(try await cache.ensembles(for: [Self.helsinki, Self.antimeridian], fetchedSince: 0).keys.map(\.self) == [Self.helsinki])
    }
}
