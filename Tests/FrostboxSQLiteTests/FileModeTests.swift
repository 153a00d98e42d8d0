import Foundation
import FrostboxCore
import FrostboxDoubles
import FrostboxSQLite
import Testing

/// The database files hold device tokens and exact coordinates: only the service's user may
/// read them, whatever the umask.
@Suite("Database file modes")
struct FileModeTests {
    static func mode(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.posixPermissions] as? Int ?? -1) & 0o777
    }

    @Test("a new device database and places file, with their -wal and -shm, are created 0600; an existing file keeps its mode")
    func privateFiles() async throws {
        let directory = try TemporaryDirectory(prefix: "frostbox-modes")
        let devicePath = directory.path("devices.sqlite")
        let placesPath = directory.path("places.sqlite")
        let database = try FrostboxDatabase(path: devicePath, placesPath: placesPath)
        let places = try PlacesDatabase(path: placesPath)
        // A write, so that the write-ahead log and its index exist.
        let store = GRDBSubscriptionStore(database: database)
        _ = try await store.register(DeviceRegistration(token: DeviceToken(trusted: String(repeating: "ab", count: 16))), at: 1)
        for path in [devicePath, devicePath + "-wal", devicePath + "-shm", placesPath] {
            #expect(try Self.mode(path) == 0o600, "\(path)")
        }
        withExtendedLifetime(places) {}

        let existing = directory.path("shared.sqlite")
        #expect(FileManager.default.createFile(atPath: existing, contents: nil, attributes: [.posixPermissions: 0o640]))
        _ = try PlacesDatabase(path: existing)
        #expect(try Self.mode(existing) == 0o640)
    }
}
