import FrostboxCore
import FrostboxDoubles
import FrostboxPostgres
import FrostboxSQLite
import TestPostgres
import Testing

/// Every `NightRecordStore` there is (issue #48): the notifier stores keep each box's nights.
enum NightRecordImplementation: String, ContractImplementation {
    case grdb, inMemory, postgres

    func make(in directory: TemporaryDirectory) async throws -> any NightRecordStore {
        switch self {
        case .postgres: PostgresNotifierStore(database: try await ContractPostgres.freshDatabase())
        case .grdb: GRDBNotifierStore(database: try FrostboxDatabase(path: directory.databasePath))
        case .inMemory: InMemoryNotifierStore()
        }
    }
}

@Suite("NightRecordStore contract", .backgroundWorkScoped)
struct NightRecordContract {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "frostbox-contract-nights")
    }

    static let helsinki = Coordinate(uncheckedLatitude: 60.19, longitude: 25.01).box
    static let fiji = Coordinate(uncheckedLatitude: -16.5, longitude: -179.99).box
    static let night = LocalDate(year: 2026, month: 11, day: 28)
    /// 18:00 local (UTC+2) on the night's evening, and its window's end at 10:00 the next day.
    static let start: Int64 = 1_795_881_600
    static let end: Int64 = start + 16 * 3_600

    static func verdict(
        _ box: GeoBox = helsinki, level: FrostLevel = .freeze, minimum: Double? = -1.5, chances: [FrostLevel: Double] = [:], judgedAt: Int64,
        night: LocalDate = night
    ) -> KeptVerdict {
        KeptVerdict(
            box: box, night: night, windowStart: start, windowEnd: end, utcOffsetSeconds: 7_200, level: level, minimumC: minimum,
            probabilities: chances, runs: [ModelRun(model: "icon_seamless", initialisedAt: start - 86_400, availableAt: start - 80_000)],
            judgedAt: judgedAt)
    }

    @Test("a kept verdict comes back whole, and only a newer one made before the night began replaces it", arguments: NightRecordImplementation.available)
    func verdicts(_ implementation: NightRecordImplementation) async throws {
        let store = try await implementation.make(in: directory)
        let first = Self.verdict(chances: [.frostRisk: 0.9, .freeze: 0.55, .hardFreeze: 0.1], judgedAt: Self.start - 20_000)
        let bare = Self.verdict(Self.fiji, level: .none, minimum: nil, judgedAt: Self.start - 20_000)
        try await store.keep([first, bare])
        #expect(
            try await store.nightRecords(in: [Self.helsinki, Self.fiji])
                == [NightRecord(verdict: first), NightRecord(verdict: bare)].sorted { $0.verdict.box.key < $1.verdict.box.key })
        // A later verdict before the night: replaces.
        let later = Self.verdict(level: .hardFreeze, minimum: -3, judgedAt: Self.start - 3_600)
        try await store.keep([later])
        #expect(try await store.nightRecords(in: [Self.helsinki]).map(\.verdict) == [later])
        // One made during the night, or an older one arriving late: kept verdict stands.
        try await store.keep([Self.verdict(level: .none, judgedAt: Self.start + 3_600), Self.verdict(level: .frostRisk, judgedAt: Self.start - 7_200)])
        #expect(try await store.nightRecords(in: [Self.helsinki]).map(\.verdict) == [later])
    }

    @Test("alerts raise the night's alerted level to the highest and keep the first alert's time and lead", arguments: NightRecordImplementation.available)
    func alerts(_ implementation: NightRecordImplementation) async throws {
        let store = try await implementation.make(in: directory)
        try await store.keep([Self.verdict(judgedAt: Self.start - 90_000)])
        let day = Self.night
        try await store.keep([NightAlert(box: Self.helsinki, night: day, level: .freeze, sentAt: Self.start - 80_000, lead: .nextNight)])
        try await store.keep([
            NightAlert(box: Self.helsinki, night: day, level: .hardFreeze, sentAt: Self.start - 3_600, lead: .sameNight),
            NightAlert(box: Self.helsinki, night: day, level: .frostRisk, sentAt: Self.start - 86_000, lead: .nextNight),
            // No kept verdict for this night: ignored.
            NightAlert(box: Self.fiji, night: day, level: .freeze, sentAt: Self.start, lead: .sameNight),
        ])
        let record = try #require(try await store.nightRecords(in: [Self.helsinki]).first)
        #expect(record.alertedLevel == .hardFreeze)
        #expect(record.firstAlertAt == Self.start - 86_000 && record.lead == .nextNight)
        #expect(try await store.nightRecords(in: [Self.fiji]).isEmpty)
    }

    @Test("nights are purged by the end of their window", arguments: NightRecordImplementation.available)
    func purge(_ implementation: NightRecordImplementation) async throws {
        let store = try await implementation.make(in: directory)
        try await store.keep([Self.verdict(judgedAt: Self.start - 100), Self.verdict(Self.fiji, judgedAt: Self.start - 100)])
        #expect(try await store.purgeNights(endedBefore: Self.end) == 0)
        #expect(try await store.purgeNights(endedBefore: Self.end + 1) == 2)
        #expect(try await store.nightRecords(in: [Self.helsinki, Self.fiji]).isEmpty)
    }
}
