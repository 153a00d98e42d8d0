import FrostboxCore
import FrostboxDoubles
import FrostboxPostgres
import FrostboxSQLite
import TestPostgres
import Testing

/// Every `NightCheckStore` there is (issue #48): due nights, choices, observations and the
/// lease behave alike on SQLite, PostgreSQL and in memory.
enum NightCheckImplementation: String, ContractImplementation {
    case grdb, inMemory, postgres

    func make(in directory: TemporaryDirectory) async throws -> any NightCheckStore {
        switch self {
        case .postgres: PostgresNotifierStore(database: try await ContractPostgres.freshDatabase())
        case .grdb: GRDBNotifierStore(database: try FrostboxDatabase(path: directory.databasePath))
        case .inMemory: InMemoryNotifierStore()
        }
    }
}

@Suite("NightCheckStore contract", .backgroundWorkScoped)
struct NightCheckContract {
    let directory: TemporaryDirectory

    init() throws {
        directory = try TemporaryDirectory(prefix: "frostbox-contract-checks")
    }

    static let night = NightRecordContract.night
    static let boxes = (0..<4).map { GeoBox(latitudeIndex: 1_200 + $0, longitudeIndex: 500) }
    static let region = VerificationRegion(countryCode: "FI", admin1Code: "18")

    /// Keeps a night for each box (the first alerted at freeze) and returns the store.
    func seeded(_ implementation: NightCheckImplementation) async throws -> any NightCheckStore {
        let store = try await implementation.make(in: directory)
        try await store.keep(Self.boxes.map { NightRecordContract.verdict($0, judgedAt: NightRecordContract.start - 3_600) })
        try await store.keep([NightAlert(box: Self.boxes[0], night: Self.night, level: .freeze, sentAt: NightRecordContract.start - 3_600, lead: .sameNight)])
        return store
    }

    @Test(
        "due nights are those ended before the cut-off with no check yet; a choice is kept once; an observation only on a chosen night",
        arguments: NightCheckImplementation.available)
    func chooseAndObserve(_ implementation: NightCheckImplementation) async throws {
        let store = try await seeded(implementation)
        #expect(try await store.dueNights(endedBefore: NightRecordContract.end, limit: 10).isEmpty)
        let due = try await store.dueNights(endedBefore: NightRecordContract.end + 1, limit: 10)
        #expect(due.map(\.box) == Self.boxes && due.map(\.alertedLevel) == [.freeze, .none, .none, .none])
        #expect(try await store.dueNights(endedBefore: NightRecordContract.end + 1, limit: 2).count == 2)
        let choices = [
            NightChoice(box: Self.boxes[0], night: Self.night, region: Self.region, stratum: "alerted", weight: 1, chosen: true),
            NightChoice(box: Self.boxes[1], night: Self.night, region: Self.region, stratum: "FI.18|s", weight: 3, chosen: true),
            NightChoice(box: Self.boxes[2], night: Self.night, region: Self.region, stratum: "FI.18|s", weight: 0, chosen: false),
            NightChoice(box: Self.boxes[3], night: Self.night, region: Self.region, stratum: "FI.18|s", weight: 0, chosen: false),
        ]
        try await store.keep(choices)
        // Chosen again (a resumed check): nothing changes.
        try await store.keep(
            choices.map {
                var c = $0
                c.chosen = true
                c.weight = 9
                return c
            })
        #expect(try await store.dueNights(endedBefore: .max, limit: 10).isEmpty)
        #expect(try await store.nightCheckCounts() == NightCheckCounts(chosen: 2, skipped: 2))
        let chosen = try await store.chosenNights(limit: 10, askedBefore: 0)
        #expect(chosen.map(\.verdict.box) == [Self.boxes[0], Self.boxes[1]] && chosen.first?.alertedLevel == .freeze)
        // A night the archive lacks stays chosen until it is given up; a skipped night is never observed.
        let now = NightRecordContract.end + 3 * 86_400
        try await store.keep(
            [
                NightObservation(box: Self.boxes[0], night: Self.night, observedMinimumC: -2.5),
                NightObservation(box: Self.boxes[1], night: Self.night, observedMinimumC: nil),
                NightObservation(box: Self.boxes[2], night: Self.night, observedMinimumC: -9),
            ], at: now, givingUpBefore: NightRecordContract.end)
        #expect(try await store.nightCheckCounts() == NightCheckCounts(chosen: 1, skipped: 2, observed: 1))
        // The night the archive lacked is not asked again until later.
        #expect(try await store.chosenNights(limit: 10, askedBefore: now).isEmpty)
        #expect(try await store.chosenNights(limit: 10, askedBefore: now + 1).map(\.verdict.box) == [Self.boxes[1]])
        // Observed twice (a resumed batch): the first stands.
        try await store.keep([NightObservation(box: Self.boxes[0], night: Self.night, observedMinimumC: 5)], at: now + 1, givingUpBefore: 0)
        let verified = try await store.verifiedNights(since: nil)
        #expect(
            verified == [
                VerifiedNight(
                    night: Self.night, region: Self.region, alertedLevel: .freeze, forecastMinimumC: -1.5, lead: .sameNight, observedMinimumC: -2.5,
                    weight: 1, stratum: "alerted", box: Self.boxes[0])
            ])
        #expect(try await store.verifiedNights(since: Self.night.next).isEmpty)
        try await store.keep([NightObservation(box: Self.boxes[1], night: Self.night, observedMinimumC: nil)], at: now, givingUpBefore: now)
        #expect(try await store.nightCheckCounts() == NightCheckCounts(skipped: 2, observed: 1, unavailable: 1))
        // Purged with their nights.
        try await store.purgeNights(endedBefore: .max)
        #expect(try await store.nightCheckCounts() == NightCheckCounts())
    }

    @Test("the check's lease is one owner's until it expires or is given back", arguments: NightCheckImplementation.available)
    func lease(_ implementation: NightCheckImplementation) async throws {
        let store = try await implementation.make(in: directory)
        #expect(try await store.claimNightCheck(owner: "a", at: 100, until: 200))
        #expect(try await store.claimNightCheck(owner: "b", at: 150, until: 300) == false)
        #expect(try await store.claimNightCheck(owner: "a", at: 150, until: 400))
        #expect(try await store.claimNightCheck(owner: "b", at: 399, until: 500) == false)
        #expect(try await store.claimNightCheck(owner: "b", at: 400, until: 500))
        try await store.releaseNightCheck(owner: "a")
        #expect(try await store.claimNightCheck(owner: "a", at: 401, until: 500) == false)
        try await store.releaseNightCheck(owner: "b")
        #expect(try await store.claimNightCheck(owner: "a", at: 401, until: 500))
    }
}
