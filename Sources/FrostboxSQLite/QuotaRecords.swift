import FrostboxCore
import GRDB

/// Row of the `quota_charge` table: one forecast request's weight at the second it started.
struct QuotaChargeRecord: Codable, FetchableRecord, MutablePersistableRecord {
    static let databaseTableName = "quota_charge"

    var id: Int64?
    var at: Int64
    var weight: Double
    var locations: Int
    /// Whether the weight is final (false: reserved for a request still running, or one
    /// whose process died; it then keeps counting at its full reserved weight).
    var settled: Bool
    /// What a share of the budgets was spent on (`QuotaShare.purpose`); nil: forecasts.
    var purpose: String?

    enum Columns {
        static let id = Column(CodingKeys.id)
        static let at = Column(CodingKeys.at)
        static let weight = Column(CodingKeys.weight)
        static let settled = Column(CodingKeys.settled)
    }

    mutating func didInsert(_ inserted: InsertionSuccess) {
        id = inserted.rowID
    }

    var charge: QuotaCharge { QuotaCharge(at: at, weight: weight, purpose: purpose) }
}

/// Row of the `quota_hold` table (at most one): a pause the forecast source asked for.
struct QuotaHoldRecord: Codable, FetchableRecord, PersistableRecord {
    static let databaseTableName = "quota_hold"

    var id: Int64 = 1
    var until: Int64
    var reason: String
    var setAt: Int64

    enum CodingKeys: String, CodingKey {
        case id, until, reason
        case setAt = "set_at"
    }

    var hold: QuotaHold { QuotaHold(until: until, reason: reason) }
}
