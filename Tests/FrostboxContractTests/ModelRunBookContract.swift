import FrostboxCore
import FrostboxDoubles
import FrostboxPostgres
import TestPostgres
import Testing

/// Every `ModelRunBook` there is (SQLite has none: one instance keeps its looks in memory).
enum ModelRunBookImplementation: String, ContractImplementation {
    case inMemory, postgres

    func make() async throws -> any ModelRunBook {
        switch self {
        case .postgres: PostgresModelRunBook(database: try await ContractPostgres.freshDatabase())
        case .inMemory: InMemoryModelRunBook()
        }
    }
}

@Suite("ModelRunBook contract", .backgroundWorkScoped)
struct ModelRunBookContract {
    static let d2 = ModelRun(model: "icon_d2", initialisedAt: 1_774_000_800, availableAt: 1_774_006_200)

    @Test("a check comes back by model, known or not, when made at or after `since`", arguments: ModelRunBookImplementation.available)
    func roundTrip(_ implementation: ModelRunBookImplementation) async throws {
        let book = try await implementation.make()
        #expect(try await book.checks(of: ["icon_d2"], since: 0).isEmpty)
        try await book.record([
            ModelRunCheck(model: "icon_d2", checkedAt: 1_000, run: Self.d2), ModelRunCheck(model: "gfs_hrrr", checkedAt: 1_001, run: nil),
        ])
        let found = try await book.checks(of: ["icon_d2", "gfs_hrrr", "icon_eu"], since: 1_000)
        #expect(
            found == [
                "icon_d2": ModelRunCheck(model: "icon_d2", checkedAt: 1_000, run: Self.d2),
                "gfs_hrrr": ModelRunCheck(model: "gfs_hrrr", checkedAt: 1_001, run: nil),
            ])
        #expect(try await book.checks(of: ["icon_d2", "gfs_hrrr"], since: 1_001).keys.sorted() == ["gfs_hrrr"])
        #expect(try await book.checks(of: [], since: 0).isEmpty)
    }

    @Test("a later check replaces a model's earlier one; an older one does not", arguments: ModelRunBookImplementation.available)
    func replaces(_ implementation: ModelRunBookImplementation) async throws {
        let book = try await implementation.make()
        try await book.record([ModelRunCheck(model: "icon_d2", checkedAt: 1_000, run: nil)])
        try await book.record([ModelRunCheck(model: "icon_d2", checkedAt: 2_000, run: Self.d2)])
        try await book.record([ModelRunCheck(model: "icon_d2", checkedAt: 1_500, run: nil)])
        #expect(try await book.checks(of: ["icon_d2"], since: 0)["icon_d2"] == ModelRunCheck(model: "icon_d2", checkedAt: 2_000, run: Self.d2))
    }
}
