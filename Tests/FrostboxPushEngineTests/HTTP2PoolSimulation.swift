import FrostboxCore

@testable import FrostboxPushEngine

/// `HTTP2PoolState` driven against a modelled gateway and modelled callers, without I/O or
/// clocks: the gateway answers each request, or drops the connection on a poison request or
/// on its `resetAfterRequests`-th request (as mock-apns does); callers resend what was lost
/// alone and give a push up after `lossesAlone` losses alone (as `APNsClient` does). Events
/// are taken in a seeded random order that keeps each connection's frames in order. Time
/// never moves, so no deadline or idle timeout can unstick a waiting request: whatever is
/// left waiting once nothing more happens is a stall.
struct HTTP2PoolSimulation {
    /// What became of every push, and what the pool was left with.
    struct Result: Sendable {
        var delivered: Set<Int> = []
        var givenUp: Set<Int> = []
        /// Pushes with no outcome when nothing more happened.
        var unfinished: Set<Int> = []
        var waiting = 0
        var inFlight = 0
        var connectionsOpened = 0
        /// Connections the gateway dropped.
        var connectionsLost = 0
        /// Most connections open or opening at once, of both lanes.
        var peakConnections = 0
        /// Events handled until nothing more happened.
        var steps = 0
    }

    private enum Event {
        case settings(HTTP2ConnectionID)
        case answer(HTTP2ConnectionID, Int32)
        case closed(HTTP2ConnectionID)
        case send(push: Int)
    }

    private struct Push {
        var alone = false
        var lostAlone = 0
    }

    private struct ServerConnection {
        var requests = 0
        var dead = false
    }

    var pool: HTTP2PoolState
    let poison: Set<Int>
    let resetAfterRequests: Int?
    let lossesAlone: Int
    private var rng: SplitMix64
    private var events: [(key: Int, event: Event)] = []
    private var pushes: [Int: Push] = [:]
    private var requestPush: [HTTP2RequestID: Int] = [:]
    private var nextRequest: HTTP2RequestID = 1
    private var server: [HTTP2ConnectionID: ServerConnection] = [:]
    private var result = Result()

    init(limits: HTTP2PoolState.Limits, poison: Set<Int> = [], resetAfterRequests: Int? = nil, lossesAlone: Int = 2, seed: UInt64) {
        pool = HTTP2PoolState(limits: limits)
        self.poison = poison
        self.resetAfterRequests = resetAfterRequests
        self.lossesAlone = lossesAlone
        rng = SplitMix64(seed: seed)
    }

    /// Hands over pushes `0..<count` at once, then runs until nothing more happens (at most
    /// `maximumSteps` events).
    mutating func run(pushes count: Int, maximumSteps: Int = 2_000_000) -> Result {
        for push in 0..<count {
            pushes[push] = Push()
            events.append((key: 0, event: .send(push: push)))
        }
        while !events.isEmpty && result.steps < maximumSteps {
            result.steps += 1
            handle(takeEvent())
        }
        result.unfinished = Set(pushes.keys)
        result.waiting = pool.waiting
        result.inFlight = pool.inFlight
        return result
    }

    /// A random connection's (or the callers') next event: frames of one connection stay in order.
    private mutating func takeEvent() -> Event {
        var firsts: [Int] = []
        var seen: Set<Int> = []
        for (index, item) in events.enumerated() where seen.insert(item.key).inserted {
            firsts.append(index)
        }
        return events.remove(at: firsts[rng.below(firsts.count)]).event
    }

    private mutating func handle(_ event: Event) {
        switch event {
        case .settings(let id):
            perform(pool.settings(id, maxConcurrentStreams: 1_000, now: 0))
        case .answer(let id, let stream):
            perform(pool.headers(id, stream: stream, status: 200, header: nil, endStream: true, now: 0))
        case .closed(let id):
            perform(pool.closed(id, error: nil, now: 0, random: 0.5))
        case .send(let push):
            guard let state = pushes[push] else { return }
            let request = nextRequest
            nextRequest += 1
            requestPush[request] = push
            perform(pool.submit(request, alone: state.alone, now: 0))
        }
    }

    private mutating func perform(_ actions: [HTTP2PoolState.Action]) {
        for action in actions {
            switch action {
            case .connect(let id):
                result.connectionsOpened += 1
                result.peakConnections = max(result.peakConnections, pool.connectionCount)
                server[id] = ServerConnection()
                events.append((key: id, event: .settings(id)))
            case .write(let id, let started):
                for item in started { receive(item, on: id) }
            case .close(let id):
                server[id]?.dead = true
                events.append((key: id, event: .closed(id)))
            case .resetStream:
                break
            case .complete(let request, let exchange):
                complete(request, exchange)
            }
        }
    }

    /// The gateway takes a request: answers it, or drops the connection.
    private mutating func receive(_ started: HTTP2PoolState.Started, on id: HTTP2ConnectionID) {
        guard var connection = server[id], !connection.dead, let push = requestPush[started.request] else { return }
        connection.requests += 1
        if poison.contains(push) || connection.requests == resetAfterRequests {
            connection.dead = true
            result.connectionsLost += 1
            events.append((key: id, event: .closed(id)))
        } else {
            events.append((key: id, event: .answer(id, started.stream)))
        }
        server[id] = connection
    }

    /// What the caller does with an outcome (`APNsClient.send`'s loop, without backoff).
    private mutating func complete(_ request: HTTP2RequestID, _ exchange: HTTP2Exchange) {
        guard let push = requestPush.removeValue(forKey: request), var state = pushes[push] else { return }
        switch exchange {
        case .response:
            pushes[push] = nil
            result.delivered.insert(push)
            return
        case .lost:
            if state.alone { state.lostAlone += 1 }
            if state.lostAlone >= lossesAlone {
                pushes[push] = nil
                result.givenUp.insert(push)
                return
            }
            state.alone = true
        case .failed, .unprocessed:
            break
        }
        pushes[push] = state
        events.append((key: 0, event: .send(push: push)))
    }
}
