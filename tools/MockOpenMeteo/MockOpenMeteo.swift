import Foundation
import FrostboxCore
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import ServiceLifecycle
import Synchronization

/// A local stand-in for Open-Meteo's `/v1/forecast`: the real response shapes (one object
/// for one location, an array in request order with `location_id` for several), units,
/// `timezone=auto` with local or unix times, GET and form-encoded POST, Open-Meteo's
/// `{"error": true, "reason": …}` bodies, calendar-window budgets answering 429 with the
/// real reasons, and fault switches. Counters say what it served and what it charged:
/// the full weight for a request it processed (answered 200, truncated or not, or left
/// hanging past the client's deadline), 1 for an error answer (4xx, 5xx, 429), and the
/// same weight counts against its budgets.
///
/// Also serves `GET /mock/counters`, `PUT /mock/faults` (a `MockFaults` JSON) and
/// `POST /mock/reset` (counters and budgets back to zero), and the models' `meta.json`
/// with its controls (`MockModelRuns`: `POST /mock/runs`, `PUT /mock/meta-faults`),
/// `/v1/ensemble` (`MockEnsembles`) and `/v1/archive` (`MockArchive.swift`).
public final class MockOpenMeteo: Sendable {
    struct State {
        var scenario: MockScenario
        var counters = MockCounters()
        var used: [Window: (key: Int64, weight: Double)] = [:]
        var random = SplitMix64(seed: 0x0F05_7B0C)
        /// Hanging answers go out now (set when the mock stops, so shutdown never waits for them).
        var hangsReleased = false
    }

    enum Window: CaseIterable {
        case minute, hour, day
        var seconds: Int64 {
            switch self {
            case .minute: 60
            case .hour: 3_600
            case .day: 86_400
            }
        }
        var reason: String {
            switch self {
            case .minute: "Minutely API request limit exceeded. Please try again in one minute."
            case .hour: "Hourly API request limit exceeded. Please try again in the next hour."
            case .day: "Daily API request limit exceeded. Please try again tomorrow."
            }
        }
    }

    let state: Mutex<State>
    let logger: Logger
    /// The models' runs, as `meta.json` announces them.
    public let runs = MockModelRuns()

    public init(scenario: MockScenario = MockScenario(), logger: Logger = Logger(label: "mock-open-meteo")) {
        state = Mutex(State(scenario: scenario))
        self.logger = logger
    }

    /// What has been served so far.
    public var counters: MockCounters { state.withLock { $0.counters } }

    /// Replaces the faults (e.g. between test steps).
    public func setFaults(_ faults: MockFaults) { state.withLock { $0.scenario.faults = faults } }

    /// Replaces the frost spots (as a new model run would change the forecast).
    public func setFrost(_ spots: [FrostSpot], everywhere: FrostSpot? = nil) {
        state.withLock {
            $0.scenario.frost = spots
            $0.scenario.frostEverywhere = everywhere
        }
    }

    /// Replaces the budgets; nil: unlimited.
    public func setBudgets(_ budgets: MockBudgets?) { state.withLock { $0.scenario.budgets = budgets } }

    /// Zeroes counters and budget usage.
    /// Lets every hanging answer go out now, and later ones at once.
    public func releaseHangs() {
        state.withLock { $0.hangsReleased = true }
        runs.release()
    }

    public func reset() {
        state.withLock {
            $0.counters = MockCounters()
            $0.used = [:]
        }
    }

    /// The mock's clock, UTC epoch seconds (the scenario's frozen `now` when it has one).
    public var now: Int64 { state.withLock { $0.scenario.now } ?? Int64(Date().timeIntervalSince1970) }

    // MARK: Serving

    /// The router: `/v1/forecast` (GET and POST) and the `/mock/…` controls.
    public func makeRouter() -> Router<BasicRequestContext> {
        let router = Router()
        router.get("/v1/forecast") { request, _ in
            await self.forecast(query: request.uri.query ?? "", method: "GET")
        }
        router.post("/v1/forecast") { request, _ in
            if self.state.withLock({ $0.scenario.faults.refusePost }) {
                self.state.withLock {
                    $0.counters.requests += 1
                    $0.counters.postRequests += 1
                    $0.counters.statuses["405", default: 0] += 1
                    self.charge(&$0, weight: 1)
                }
                return Self.error("Method not allowed", status: .methodNotAllowed)
            }
            var request = request
            let body = try await request.collectBody(upTo: 4 << 20)
            return await self.forecast(query: String(buffer: body), method: "POST")
        }
        router.get("/v1/ensemble") { request, _ in
            await self.forecast(query: request.uri.query ?? "", method: "GET", ensemble: true)
        }
        router.post("/v1/ensemble") { request, _ in
            var request = request
            let body = try await request.collectBody(upTo: 4 << 20)
            return await self.forecast(query: String(buffer: body), method: "POST", ensemble: true)
        }
        router.get("/mock/counters") { _, _ in
            Self.json(self.counters, status: .ok)
        }
        router.put("/mock/faults") { request, _ in
            var request = request
            let body = try await request.collectBody(upTo: 1 << 20)
            guard let faults = try? JSONDecoder().decode(MockFaults.self, from: Data(body.readableBytesView)) else {
                return Self.error("faults must be a MockFaults JSON object", status: .badRequest)
            }
            self.setFaults(faults)
            return Response(status: .noContent)
        }
        runs.routes(router)
        archiveRoutes(router)
        router.post("/mock/reset") { _, _ in
            self.reset()
            return Response(status: .noContent)
        }
        return router
    }

    /// An application serving the mock on `host:port` (port 0 picks a free one); `onRunning`
    /// gets the bound port.
    public func makeApplication(
        host: String = "127.0.0.1", port: Int = 0, onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        Application(
            router: makeRouter(),
            configuration: .init(address: .hostname(host, port: port), serverName: "mock-open-meteo"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) },
            logger: logger)
    }

    /// Runs the mock on a free loopback port for the duration of `body`, which gets its base URL.
    public func withRunning<T: Sendable>(_ body: @Sendable (String) async throws -> T) async throws -> T {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = makeApplication(onRunning: { port in continuation.yield(port) })
        // Stopped by a graceful shutdown, never by cancelling the serving task: cancelling it
        // can strand an accepted connection whose async writer is then never finished, which
        // traps in NIO ("Deinited NIOAsyncWriter without calling finish()").
        let services = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await services.run() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else {
                await services.triggerGracefulShutdown()
                throw CancellationError()
            }
            let result: Result<T, any Error>
            do {
                result = .success(try await body("http://127.0.0.1:\(port)"))
            } catch {
                result = .failure(error)
            }
            releaseHangs()
            await services.triggerGracefulShutdown()
            try await group.waitForAll()
            return try result.get()
        }
    }

    // MARK: Forecast

    func forecast(query: String, method: String, ensemble: Bool = false) async -> Response {
        let parameters = Self.parse(query)
        let decision = state.withLock { state -> Decision in
            if ensemble {
                state.counters.ensembleRequests += 1
            } else {
                state.counters.requests += 1
                if method == "GET" { state.counters.getRequests += 1 } else { state.counters.postRequests += 1 }
            }
            return self.decide(&state, parameters: parameters, ensemble: ensemble)
        }
        if decision.latencyMilliseconds > 0 {
            try? await Task.sleep(for: .milliseconds(decision.latencyMilliseconds))
        }
        let response: Response
        switch decision.kind {
        case .error(let status, let reason):
            response = Self.error(reason, status: HTTPResponse.Status(code: status))
            state.withLock { self.charge(&$0, weight: 1) }
        case .forecast(let request, let fault):
            await hang(fault)
            response = render(request, fault: fault)
        }
        state.withLock { $0.counters.statuses["\(response.status.code)", default: 0] += 1 }
        return response
    }

    /// Charges `weight` to the counters and to every budget window of the current second; under the lock.
    func charge(_ state: inout State, weight: Double) {
        let now = state.scenario.now ?? Int64(Date().timeIntervalSince1970)
        for window in Window.allCases {
            let key = now / window.seconds
            let used = state.used[window]?.key == key ? state.used[window]!.weight : 0
            state.used[window] = (key, used + weight)
        }
        state.counters.chargedWeight += weight
    }

    struct Decision {
        enum Kind {
            case error(status: Int, reason: String)
            case forecast(ForecastRequest, Fault)
        }
        var kind: Kind
        var latencyMilliseconds: Int
    }

    enum Fault: Equatable {
        case none, truncate, dropLocation, scramble
        /// Answer only after this many milliseconds (past the client's deadline).
        case hang(milliseconds: Int)
    }

    /// Validates a request, applies faults and budgets; under the lock.
    func decide(_ state: inout State, parameters: [String: String], ensemble: Bool = false) -> Decision {
        let latency = state.scenario.faults.latencyMilliseconds
        func fail(_ status: Int, _ reason: String) -> Decision { Decision(kind: .error(status: status, reason: reason), latencyMilliseconds: latency) }
        if let refusal = keyRefusal(state, parameters: parameters) { return fail(refusal.status, refusal.reason) }
        let request: ForecastRequest
        switch ForecastRequest.parse(parameters, scenario: state.scenario, ensemble: ensemble) {
        case .failure(let error): return fail(400, error.reason)
        case .success(let parsed): request = parsed
        }
        if let refusal = refusal(&state) { return fail(refusal.status, refusal.reason) }
        let weight = request.weight
        charge(&state, weight: weight)
        if ensemble {
            state.counters.ensembleLocations += request.boxes.count
            state.counters.ensembleWeight += weight
        } else {
            state.counters.locations += request.boxes.count
            state.counters.weight += weight
            state.counters.batchSizes.append(request.boxes.count)
        }
        let fault = servedFault(&state)
        var dated = request
        dated.now = state.scenario.now ?? Int64(Date().timeIntervalSince1970)
        return Decision(kind: .forecast(dated, fault), latencyMilliseconds: latency)
    }

    func render(_ request: ForecastRequest, fault: Fault) -> Response {
        let scenario = state.withLock { $0.scenario }
        var locations = Array(request.boxes.enumerated())
        if fault == .dropLocation, locations.count > 0 { locations.removeLast() }
        let single = request.boxes.count == 1 && fault != .dropLocation
        var writer = MockResponseWriter(capacity: locations.count * request.hours * 40 + 1_024)
        if !single { writer.raw("[") }
        let ordered = fault == .scramble ? Array(locations.reversed()) : locations
        for (position, (id, box)) in ordered.enumerated() {
            if position > 0 { writer.raw(",") }
            writer.location(
                request: request, box: box, locationID: single || fault == .scramble ? nil : id,
                timezone: request.timezone(for: id, box: box, scenario: scenario),
                spot: scenario.frost.first(where: { $0.box == box }) ?? scenario.frostEverywhere, spread: scenario.ensembleSpreadC,
                calm: scenario.calm)
        }
        if !single { writer.raw("]") }
        var bytes = writer.bytes
        if fault == .truncate { bytes.removeLast(bytes.count / 2) }
        var buffer = ByteBufferAllocator().buffer(capacity: bytes.count)
        buffer.writeBytes(bytes)
        return Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: ResponseBody(byteBuffer: buffer))
    }

    // MARK: Helpers

    static func error(_ reason: String, status: HTTPResponse.Status) -> Response {
        json(["error": AnyEncodable.bool(true), "reason": .string(reason)], status: status)
    }

    static func json(_ value: some Encodable, status: HTTPResponse.Status) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(value)) ?? Data("{}".utf8)
        return Response(
            status: status, headers: [.contentType: "application/json; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// `a=1&b=x%2Cy` → ["a": "1", "b": "x,y"] (form encoding: `+` is a space).
    static func parse(_ query: String) -> [String: String] {
        var result: [String: String] = [:]
        for pair in query.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = decode(parts[0])
            let value = parts.count > 1 ? decode(parts[1]) : ""
            result[key] = value
        }
        return result
    }

    static func decode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}

/// A tiny heterogeneous value for error bodies.
enum AnyEncodable: Encodable {
    case bool(Bool)
    case string(String)

    func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .bool(let value): try c.encode(value)
        case .string(let value): try c.encode(value)
        }
    }
}
