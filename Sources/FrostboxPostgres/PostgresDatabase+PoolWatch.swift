import FrostboxCore
import PostgresNIO
import ServiceLifecycle
import Synchronization

/// Whether the pool hands out connections. After a long outage postgres-nio's pool waits out a
/// reconnect backoff that grows to a minute (`100 ms × 1.25^attempts`), so for up to a minute
/// after the server is back every statement still finds no connection. The watch sees that
/// state — a statement found no connection, none has been handed out since, none is held — and
/// `PostgresDatabase.run` replaces such a pool once a connection of its own reaches the server.
/// A pool merely busy keeps handing out connections as statements end, so it is never replaced.
final class PoolWatch: Sendable {
    private struct State {
        var held = 0
        var lastGrant: ContinuousClock.Instant
        var starvedSince: ContinuousClock.Instant?
        var lastReplacement: ContinuousClock.Instant?
    }

    private let state: Mutex<State>

    init(now: ContinuousClock.Instant = .now) {
        state = Mutex(State(lastGrant: now))
    }

    /// A statement got a connection.
    func granted(at now: ContinuousClock.Instant = .now) {
        state.withLock { state in
            state.held += 1
            state.lastGrant = now
            state.starvedSince = nil
        }
    }

    /// A statement gave its connection back.
    func returned() { state.withLock { $0.held = max(0, $0.held - 1) } }

    /// Whether a statement holds a connection now (then a wait in vain may be the pool's
    /// business, not the server's).
    var isBusy: Bool { state.withLock { $0.held > 0 } }

    /// A statement gave up waiting for a connection.
    func foundNoConnection(at now: ContinuousClock.Instant = .now) {
        state.withLock { state in
            if state.starvedSince == nil { state.starvedSince = now }
        }
    }

    /// Whether statements have found no connection for `after`, none was handed out in that
    /// time, none is held, and the last replacement (if any) is at least twice `after` ago.
    func isStarved(at now: ContinuousClock.Instant = .now, after: Duration) -> Bool {
        state.withLock { state in
            guard state.held == 0, let since = state.starvedSince, now - since >= after, now - state.lastGrant >= after else { return false }
            return state.lastReplacement.map { now - $0 >= after * 2 } ?? true
        }
    }

    /// The pool was replaced: the watch starts over (leases of the old pool no longer count).
    func replaced(at now: ContinuousClock.Instant = .now) {
        state.withLock { state in
            state = State(lastGrant: now, starvedSince: nil, lastReplacement: now)
        }
    }
}

extension PostgresDatabase {
    /// How long statements must have found no connection before the pool is suspected.
    static let starvedAfter = Duration.seconds(3)

    /// Looks every second whether the pool is starved (`PoolWatch`) while a connection of its
    /// own reaches the server; then returns a fresh pool for `run` to start and install. Nil
    /// when cancelled or shutting down.
    func nextReplacement() async -> PostgresClient? {
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            guard !Task.isCancelled, !Task.isShuttingDownGracefully else { return nil }
            guard poolWatch.isStarved(after: Self.starvedAfter) else { continue }
            guard case .connected = await directProbe(within: connectionWait * 2) else { continue }
            return PostgresClient(configuration: poolConfiguration, backgroundLogger: poolLogger)
        }
        return nil
    }

    /// What a connection outside the pool found.
    enum DirectProbe {
        case connected
        /// Connected, and asked: the server refuses writes (`checkingWrites` only).
        case readOnly
        /// It failed; database trouble says why.
        case failed(StorageUnavailableError?)
        /// No answer within the wait (a server shutting down can accept and never start).
        case noAnswer
    }

    /// One connection outside the pool, opened and closed, given at most `wait`;
    /// `checkingWrites`: it also asks whether the server takes writes (`readOnly` when not).
    func directProbe(within wait: Duration, checkingWrites: Bool = false) async -> DirectProbe {
        let (settings, logger) = (settings, logger)
        let race = FirstOutcome<DirectProbe>()
        let probe = Task {
            do {
                var configuration = try Self.connectionConfiguration(settings)
                configuration.options.connectTimeout = TimeAmount(wait)
                let connection = try await PostgresConnection.connect(configuration: configuration, id: 0, logger: logger)
                do {
                    let readOnly = checkingWrites ? try await Self.refusesWrites(connection, logger: logger) : false
                    try? await connection.close()
                    race.settle(.success(readOnly ? .readOnly : .connected))
                } catch {
                    try? await connection.close()
                    throw error
                }
            } catch {
                race.settle(.success(.failed(PostgresUnavailability.classify(error))))
            }
        }
        let timer = Task {
            try? await Task.sleep(for: wait)
            race.settle(.success(.noAnswer))
        }
        let outcome = (try? await race.value()) ?? .noAnswer
        probe.cancel()
        timer.cancel()
        return outcome
    }
}
