import FrostboxCore
import FrostboxDoubles
import FrostboxNotifier
import FrostboxPostgres
import FrostboxSQLite
import TestPostgres
import Testing

/// Writes of the outbox that each store does its own way (COPY, a device's key, chunks).
extension NotifierStoreContract {
    @Test(
        "an entry's text and empty fields come back exactly: a topic with a backslash, tab and newline; no topic, environment or hold",
        arguments: NotifierStoreImplementation.available)
    func enqueueExactText(_ implementation: NotifierStoreImplementation) async throws {
        let subject = try await implementation.make(in: directory)
        try await subject.subscribe(alice, home, "Home", 100)
        try await subject.subscribe(bob, home, "Cabin", 100)
        var odd = entry(alice)
        odd.notification.app = "fi.example\\app\tweird\nline\r"
        odd.notBefore = 5_000
        odd.frostStartsAt = 9_000
        var plain = entry(bob)
        plain.notification.app = nil
        plain.notification.environment = nil
        #expect(try await subject.store.enqueue([odd, plain], runID: nil).count == 2)
        let pending = try await subject.store.pendingOutbox(after: 0, through: nil, limit: 10, dueBy: 6_000)
        #expect(pending.count == 2)
        #expect(pending.first { $0.token == alice }?.notification == odd.notification)
        #expect(pending.first { $0.token == alice }?.notBefore == 5_000)
        #expect(pending.first { $0.token == alice }?.frostStartsAt == 9_000)
        #expect(pending.first { $0.token == bob }?.notification == plain.notification)
        #expect(pending.first { $0.token == bob }?.notBefore == nil)
    }

    // PostgreSQL only: it writes 5,000 entries per chunk; the other stores write an enqueue in
    // one pass, and thousands of entries in one test held a loaded whole run's shared threads.
    @Test(
        "an enqueue larger than a store's write chunk stores each entry once and gives each its own id, in order",
        arguments: NotifierStoreImplementation.available.filter { $0 == .postgres })
    func enqueueManyChunks(_ implementation: NotifierStoreImplementation) async throws {
        let subject = try await implementation.make(in: directory)
        try await subject.subscribe(alice, home, "Home", 100)
        var entries: [OutboxEntry] = []
        var night = LocalDate(year: 2026, month: 1, day: 1)
        for _ in 0..<1_800 {
            for level in [FrostLevel.frostRisk, .freeze, .hardFreeze] { entries.append(entry(alice, night: night, level: level)) }
            night = night.next
        }
        let stored = try await subject.store.enqueue(entries, runID: nil)
        #expect(stored.count == 5_400)
        #expect(stored.map(\.event) == entries.map(\.event))
        #expect(zip(stored, stored.dropFirst()).allSatisfy { $0.id < $1.id })
        #expect(try await subject.store.pendingOutbox(after: 0, through: nil, limit: 10_000).count == 5_400)
        // Enqueued again: every one already there.
        #expect(try await subject.store.enqueue(Array(entries.prefix(5_001)), runID: nil).isEmpty)
    }

    @Test(
        "entries carrying the device keys of the subscription read keep the rules: one per (device, event), none for a removed device",
        arguments: NotifierStoreImplementation.available)
    func enqueueByDeviceKey(_ implementation: NotifierStoreImplementation) async throws {
        let subject = try await implementation.make(in: directory)
        let store = subject.store
        try await subject.subscribe(alice, home, "Home", 100)
        try await subject.subscribe(bob, home, "Cabin", 100)
        let keys = Dictionary(
            (try await store.places(in: [home.box])[home.box] ?? []).map { ($0.token, $0.deviceKey) }, uniquingKeysWith: { first, _ in first })
        func keyed(_ entry: OutboxEntry) -> OutboxEntry {
            var entry = entry
            entry.deviceKey = keys[entry.token] ?? nil
            return entry
        }
        let first = try await store.enqueue([keyed(entry(alice)), keyed(entry(bob))], runID: nil)
        #expect(first.map(\.token) == [alice, bob])
        #expect(first.allSatisfy { $0.id > 0 })
        // One already stored, one new, one twice in the call: the new one once.
        let escalation = keyed(entry(alice, level: .hardFreeze, kind: .escalation))
        let second = try await store.enqueue([keyed(entry(alice)), escalation, escalation], runID: nil)
        #expect(second.map(\.event.level) == [.hardFreeze])
        // A device removed since the read: its entry is skipped, the others stored.
        _ = try await store.pruneDevice(bob, registeredNoLaterThan: Int64.max)
        let third = try await store.enqueue(
            [keyed(entry(bob, level: .hardFreeze)), keyed(entry(alice, night: LocalDate(year: 2026, month: 5, day: 13)))], runID: nil)
        #expect(third.map(\.token) == [alice])
        let pending = try await store.pendingOutbox(after: 0, through: nil, limit: 10)
        #expect(pending.count == 3)
        #expect(pending.map(\.id) == (first.filter { $0.token == alice } + second + third).map(\.id))
    }
}
