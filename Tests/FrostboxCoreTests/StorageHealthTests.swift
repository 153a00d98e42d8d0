import FrostboxCore
import Testing

/// The state behind `/ready` and the one log line per change of the database's state.
@Suite("Storage health")
struct StorageHealthTests {
    static let readOnly = StorageUnavailableError(.readOnly, code: "25006", message: "cannot execute INSERT in a read-only transaction")
    static let down = StorageUnavailableError(.down, code: "57P01", message: "terminating connection due to administrator command")
    static let full = StorageUnavailableError(.diskFull, code: "53100", message: "could not extend file: No space left on device")

    @Test("a failure is reported once; repeats are counted into a reminder at most once a minute; recovery is reported with the count")
    func reportsChangesOnce() {
        var health = StorageHealth()
        #expect(health.record(.succeeded(wrote: true), at: 0) == nil, "nothing to say while available")
        #expect(health.record(.failed(Self.down), at: 1_000) == .init(unavailable: Self.down, failures: 1, isReminder: false))
        for t in stride(from: Int64(1_100), to: 60_000, by: 100) { #expect(health.record(.failed(Self.down), at: t) == nil) }
        let reminder = health.record(.failed(Self.down), at: 61_000)
        #expect(reminder?.isReminder == true)
        #expect(reminder?.failures == 590)
        #expect(!health.isAvailable)
        #expect(health.record(.failed(Self.down), at: 62_000) == nil)
        #expect(health.record(.succeeded(wrote: true), at: 63_000) == .init(unavailable: nil, failures: 1, isReminder: false))
        #expect(health.isAvailable)
    }

    @Test("a different condition is a change of state, reported at once")
    func differentConditionIsAChange() {
        var health = StorageHealth()
        _ = health.record(.failed(Self.down), at: 0)
        #expect(health.record(.failed(Self.readOnly), at: 10)?.unavailable == Self.readOnly)
        #expect(health.unavailable == Self.readOnly)
    }

    @Test("under a read-only server reads that work do not announce it writable; a write or a probe finding it writable does")
    func readsDoNotClearReadOnly() {
        var health = StorageHealth()
        _ = health.record(.failed(Self.readOnly), at: 0)
        #expect(health.record(.succeeded(wrote: false), at: 10) == nil)
        #expect(!health.isAvailable)
        #expect(health.record(.writable, at: 20)?.unavailable == nil)
        #expect(health.isAvailable)
        _ = health.record(.failed(Self.readOnly), at: 30)
        #expect(health.record(.succeeded(wrote: true), at: 40) != nil)
        #expect(health.isAvailable)
    }

    /// Issue #50: through a switchover both instances logged "available again" from reads
    /// that reached the demoted primary, then "unavailable … 25006" on the next write.
    @Test("after an outage a read that works clears nothing (it may have reached a standby); the next write's 25006 is a change, a write that works clears it")
    func readDoesNotClearDown() {
        var health = StorageHealth()
        _ = health.record(.failed(Self.down), at: 0)
        #expect(health.record(.succeeded(wrote: false), at: 10) == nil)
        #expect(health.unavailable == Self.down)
        #expect(health.record(.failed(Self.readOnly), at: 20)?.unavailable == Self.readOnly)
        #expect(health.record(.succeeded(wrote: false), at: 30) == nil)
        #expect(health.record(.succeeded(wrote: true), at: 40) == .init(unavailable: nil, failures: 0, isReminder: false))
        #expect(health.isAvailable)
    }

    @Test("disk full holds against probes for a while (only a write can tell), and yields to a write at once")
    func diskFullHolds() {
        var health = StorageHealth()
        _ = health.record(.failed(Self.full), at: 0)
        #expect(health.record(.writable, at: 5_000) == nil)
        #expect(!health.isAvailable)
        #expect(health.record(.writable, at: 10_000)?.unavailable == nil)
        _ = health.record(.failed(Self.full), at: 20_000)
        #expect(health.record(.succeeded(wrote: true), at: 20_001)?.unavailable == nil)
    }
}
