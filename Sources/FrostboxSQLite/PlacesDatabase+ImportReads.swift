import FrostboxCore
import GRDB

/// What the place import reads back from a places file, blocking (it runs on the import's
/// own threads, not on Swift's cooperative pool): the SQL stays in this adapter.
extension PlacesDatabase {
    /// Whether at least one place is stored (cheap on any size).
    public func holdsPlaces() throws -> Bool {
        try pool.read { db in try !Self.isEmpty(db) }
    }

    /// The stored places among `ids`, with their alternate names, in the order of `ids`
    /// (ids not stored are left out).
    public func storedPlaces(_ ids: some Collection<Int64>) throws -> [Place] {
        try pool.read { db in
            try ids.compactMap { id in try GRDBPlaceUpdater.storedPlace(db, id: id) }
        }
    }

    /// Every stored alternate name, by place (each place's in id order); empty when none is
    /// stored.
    public func storedAlternateNamesByPlace() throws -> [Int64: [AlternateName]] {
        try pool.read { db in
            var stored: [Int64: [AlternateName]] = [:]
            guard try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM alternate_name)") == true else { return stored }
            for alternate in try GRDBPlaceUpdater.allAlternates(db) { stored[alternate.placeID, default: []].append(alternate) }
            return stored
        }
    }
}
