import Foundation
import FrostboxCore
import FrostboxDoubles
import GRDB
import Testing

@testable import FrostboxSQLite

/// Places live in their own file: a device database from before moves its places over, and
/// an import into the places file never holds the device database's lock.
@Suite("The places file")
struct PlacesFileTests {
    static let token = "a11ce000000000000000000000000001"

    @Test("the default places file sits beside the database")
    func defaultPath() {
        #expect(PlacesDatabase.defaultPath(beside: "./frostbox.sqlite") == "./frostbox-places.sqlite")
        #expect(PlacesDatabase.defaultPath(beside: "/var/lib/frostbox/db.sqlite3") == "/var/lib/frostbox/db-places.sqlite3")
        #expect(PlacesDatabase.defaultPath(beside: "/data/frostbox") == "/data/frostbox-places")
    }

    /// A device database at the schema before places moved out, holding two places, their
    /// names, a division, a country and a device.
    func previousSchema(at path: String) throws {
        let queue = try DatabaseQueue(path: path)
        try FrostboxMigrations.migrator(before: "v8-places-own-file").migrate(queue)
        try queue.write { db in
            try db.execute(
                sql: """
                    INSERT INTO device (token, created_at, registered_at) VALUES ('\(Self.token)', 1, 1);
                    INSERT INTO place VALUES
                      (658225, 60.17, 24.94, 558457, 'P', 'PPLC', 'FI', '01', 'Europe/Helsinki', '2024-01-01', 'Helsinki', 'Helsinki', 'Helsingfors'),
                      (660158, 60.21, 24.65, 256760, 'P', 'PPLA3', 'FI', '01', 'Europe/Helsinki', '2024-01-01', 'Espoo', 'Espoo', 'Esbo');
                    INSERT INTO place_name_box VALUES (1, 'helsinki', 658225), (1, 'helsingfors', 658225), (2, 'espoo', 660158), (2, 'esbo', 660158);
                    INSERT INTO place_name_cell VALUES (3, 'helsinki', 658225);
                    INSERT INTO place_name_tier VALUES (13, 'helsinki', 658225);
                    INSERT INTO admin1 VALUES ('FI.01', 'Uusimaa', 'Uusimaa', 830709);
                    INSERT INTO country VALUES ('FI', 'Finland', 'Helsinki', 5518050, 'EU');
                    """)
        }
        try queue.close()
    }

    @Test("a database from before keeps its places: they move to the places file, the device database drops its copies")
    func legacyPlacesMove() async throws {
        let directory = try TemporaryDirectory()
        try previousSchema(at: directory.databasePath)
        let database = try FrostboxDatabase(path: directory.databasePath)
        let placesPath = PlacesDatabase.defaultPath(beside: directory.databasePath)
        #expect(FileManager.default.fileExists(atPath: placesPath))
        let places = try PlacesDatabase(path: placesPath)
        #expect(try await places.placeCount() == 2)
        let counts = try await places.pool.read { db in
            try ["place_name_box", "place_name_cell", "place_name_tier", "admin1", "country"].map { table in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? -1
            }
        }
        #expect(counts == [4, 1, 1, 1, 1])
        // Worldwide searches read the population tiers: Helsinki's row moved with it.
        let found = try await GRDBPlaceIndex(database: places).search(try PlaceQuery(text: "helsin"))
        #expect(found.map(\.place.id) == [658225])
        #expect(found.first?.countryName == "Finland")
        let leftovers = try await database.pool.read { db in
            try String.fetchAll(db, sql: "SELECT name FROM sqlite_master WHERE name IN ('place', 'place_name_box', 'admin1', 'country')")
        }
        #expect(leftovers.isEmpty)
        #expect(try await database.statistics().devices == 1)
        // Opening again moves nothing more and loses nothing.
        _ = try FrostboxDatabase(path: directory.databasePath)
        #expect(try await places.placeCount() == 2)
    }

    @Test("a places file that already holds places wins over the old copies, which are dropped")
    func placesFileWins() async throws {
        let directory = try TemporaryDirectory()
        try previousSchema(at: directory.databasePath)
        let placesPath = directory.url.appendingPathComponent("elsewhere.sqlite").path
        let places = try PlacesDatabase(path: placesPath)
        try await places.pool.write { db in
            try GRDBPlaceUpdater.write(Place(id: 1, name: "Newer", coordinate: Coordinate(uncheckedLatitude: 1, longitude: 1)), db)
        }
        let database = try FrostboxDatabase(path: directory.databasePath, placesPath: placesPath)
        #expect(try await places.placeCount() == 1)
        #expect(try await database.pool.read { db in try db.tableExists("place") } == false)
    }

    @Test("device writes neither wait for nor fail on an import into the places file holding its write lock")
    func importDoesNotLockDevices() async throws {
        let directory = try TemporaryDirectory()
        let database = try FrostboxDatabase(path: directory.databasePath)
        let places = try PlacesDatabase(path: PlacesDatabase.defaultPath(beside: directory.databasePath))
        let store = GRDBSubscriptionStore(database: database, maximumSubscriptionsPerDevice: 50)
        // An import's long write transaction on the places file, held while devices write.
        let holding = AsyncStream.makeStream(of: Void.self)
        let release = AsyncStream.makeStream(of: Void.self)
        let importer = Task.detached {
            try places.pool.writeWithoutTransaction { db in
                try db.inTransaction {
                    try GRDBPlaceUpdater.write(Place(id: 7, name: "Staged", coordinate: Coordinate(uncheckedLatitude: 1, longitude: 1)), db)
                    holding.continuation.yield()
                    // Block this writer until the device writes are done.
                    let semaphore = DispatchSemaphore(value: 0)
                    Task {
                        for await _ in release.stream { break }
                        semaphore.signal()
                    }
                    semaphore.wait()
                    return .commit
                }
            }
        }
        for await _ in holding.stream { break }
        for index in 0..<20 {
            let token = try DeviceToken(String(format: "%032x", index + 1))
            _ = try await store.subscribe(
                token, to: NewSubscription(coordinate: Coordinate(uncheckedLatitude: 60, longitude: 25), name: try PlaceName("Home")),
                at: 1_000)
        }
        // Searches read the committed places meanwhile (none yet), without waiting either.
        #expect(try await GRDBPlaceIndex(database: places).search(try PlaceQuery(text: "staged")).isEmpty)
        release.continuation.yield()
        try await importer.value
        #expect(try await database.statistics().subscriptions == 20)
        #expect(try await places.placeCount() == 1)
    }
}
