import Foundation
import FrostboxCore
import Logging
import PostgresNIO
import TestPostgres
import Testing

@testable import FrostboxPostgres

/// Issue #32: after a long outage postgres-nio's pool waits out a reconnect backoff of up to a
/// minute before it tries the server again; the database replaces such a pool once a
/// connection of its own reaches the server.
@Suite("PostgreSQL pool watch")
struct PoolReplacementTests {
    @Test("the watch calls a pool starved only when statements found no connection, none was handed out and none is held")
    func starvedOnlyWhenNothingIsHandedOut() {
        let start = ContinuousClock.now
        let watch = PoolWatch(now: start)
        #expect(!watch.isStarved(at: start + .seconds(10), after: .seconds(3)), "nothing asked for: not starved")
        watch.foundNoConnection(at: start + .seconds(1))
        #expect(!watch.isStarved(at: start + .seconds(3), after: .seconds(3)), "too soon")
        #expect(watch.isStarved(at: start + .seconds(4), after: .seconds(3)))

        // A busy pool: a connection was handed out meanwhile, so it is not starved.
        watch.granted(at: start + .seconds(5))
        watch.foundNoConnection(at: start + .seconds(5.5))
        #expect(!watch.isStarved(at: start + .seconds(7), after: .seconds(3)))
        // One held for long: never starved while it is held.
        #expect(!watch.isStarved(at: start + .seconds(20), after: .seconds(3)))
        watch.returned()
        #expect(watch.isStarved(at: start + .seconds(20), after: .seconds(3)))

        // Just replaced: the next verdict waits twice as long.
        watch.replaced(at: start + .seconds(20))
        watch.foundNoConnection(at: start + .seconds(20.5))
        #expect(!watch.isStarved(at: start + .seconds(24), after: .seconds(3)))
        #expect(watch.isStarved(at: start + .seconds(26.5), after: .seconds(3)))
        // A lease of the old pool handed back after the replacement does not go negative.
        watch.returned()
        watch.granted(at: start + .seconds(27))
        watch.returned()
        watch.foundNoConnection(at: start + .seconds(28))
        #expect(watch.isStarved(at: start + .seconds(40), after: .seconds(3)))
    }
}

/// In the fault suite, so that its private cluster never runs beside the suite's others.
extension PostgresFaultTests {
    /// 75 s down with writes asked for throughout drives the pool's backoff to ~20 s (without
    /// the replacement the first write after the restart comes 0–20 s later, depending on where
    /// in its wait the pool is); with it, within a few seconds of the server accepting connections.
    @Test("after a 75 s outage writes work again within seconds of the restart, not after the pool's reconnect backoff")
    func healsSoonAfterLongOutage() async throws {
        let cluster = try await TestPostgresCluster.offThePool { try TestPostgresCluster.startPrivate() }
        defer { cluster.remove() }
        let database = try await PostgresFaultTests.open(cluster, prefix: "replace", connections: 2)
        let store = PostgresSubscriptionStore(database: database)
        // Two connections for four writes: on a busy machine one may wait past the connection wait.
        try await PostgresFaultTests.eventually { try await PostgresFaultTests.registerConcurrently(store, from: 0, count: 4) }
        try await TestPostgresCluster.offThePool { try cluster.stopServer() }
        let clock = ContinuousClock()
        let down = clock.now
        var index = 100
        while clock.now - down < .seconds(75) {
            _ = try? await store.register(DeviceRegistration(token: PostgresFaultTests.token(index)), at: 1)
            index += 1
            try await Task.sleep(for: .milliseconds(250))
        }
        try await TestPostgresCluster.offThePool { try cluster.startServer() }
        let restarted = clock.now
        try await PostgresFaultTests.within(.seconds(90), "a write after the restart") {
            try await PostgresFaultTests.eventually { try await PostgresFaultTests.registerConcurrently(store, from: 500, count: 2) }
        }
        let healed = clock.now - restarted
        #expect(healed < .seconds(8), "the first write after the restart took \(healed)")
        // Ready again too. A readiness check answers within the connection wait or says "not
        // ready"; on two cores busy with the whole suite one check may miss it, so a few
        // checks within the same 8 s, not a single one.
        var ready = await database.isReady()
        for _ in 0..<16 where !ready {
            try await Task.sleep(for: .milliseconds(500))
            ready = await database.isReady()
        }
        #expect(ready, "not ready within 8 s of a write that worked")
    }
}
