import FrostboxCore
import Foundation
import GRDB

/// Row of the `outbox` table: one alert to one device, with the exact push to send.
struct OutboxRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "outbox"

    var id: Int64?
    var token: String
    var box: Int64
    var night: String
    var level: Int
    var kind: String
    var apnsID: String
    var collapseID: String?
    var topic: String?
    var environment: String?
    var pushType: String
    var priority: Int
    var expiration: Int64?
    var payload: String
    var status: String
    var attempts: Int
    var createdAt: Int64
    var runID: Int64?

    enum CodingKeys: String, CodingKey {
        case id, token, box, night, level, kind, topic, environment, priority, expiration, payload, status, attempts
        case apnsID = "apns_id"
        case collapseID = "collapse_id"
        case pushType = "push_type"
        case createdAt = "created_at"
        case runID = "run_id"
    }

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let status = Column(CodingKeys.status)
    }

    /// The columns `entry` reads, so that delivery fetches no more than it needs.
    static var databaseSelection: [any SQLSelectable] {[
        Column("id"), Column("token"), Column("box"), Column("night"), Column("level"), Column("kind"), Column("apns_id"),
        Column("collapse_id"), Column("topic"), Column("environment"), Column("push_type"), Column("priority"),
        Column("expiration"), Column("payload"), Column("status"), Column("attempts"), Column("created_at"), Column("run_id"),
    ]}

    init(_ entry: OutboxEntry, runID: Int64?) {
        let n = entry.notification
        id = nil
        token = n.token.hex
        box = entry.event.box.key
        night = entry.event.night.description
        level = entry.event.level.rawValue
        kind = entry.kind.rawValue
        apnsID = n.apnsID
        collapseID = n.collapseID
        topic = n.topic
        environment = n.environment?.rawValue
        pushType = n.pushType.rawValue
        priority = n.priority.rawValue
        expiration = n.expiration
        payload = n.payload.outboxJSON
        status = "pending"
        attempts = entry.attempts
        createdAt = entry.createdAt
        self.runID = runID
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    /// The stored entry; the push decoded from the payload exactly as it was planned.
    func entry() throws -> OutboxEntry {
        guard let box = GeoBox(key: box), let night = LocalDate(text: night), let level = FrostLevel(rawValue: level),
            let kind = AlertKind(rawValue: kind), let pushType = PushType(rawValue: pushType),
            let priority = PushPriority(rawValue: priority)
        else { throw DatabaseError(message: "outbox row \(id ?? 0) holds values this version cannot read") }
        let notification = PushNotification(
            token: DeviceToken(trustedHex: token), topic: topic, environment: environment.flatMap(APNsEnvironment.init(rawValue:)),
            apnsID: apnsID, collapseID: collapseID, pushType: pushType, priority: priority, expiration: expiration,
            payload: try Self.decoder.decode(PushPayload.self, from: Data(payload.utf8)))
        return OutboxEntry(
            id: id ?? 0, event: FrostEvent(box: box, night: night, level: level), kind: kind,
            notification: notification, attempts: attempts, createdAt: createdAt)
    }

    static let decoder = JSONDecoder()
}
