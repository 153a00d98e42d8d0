import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// The mock's model metadata, `GET /data/{domain}/static/meta.json` as Open-Meteo serves it
/// (`last_run_initialisation_time`, `last_run_availability_time`, …), with runs published
/// on command, requests counted per domain, and faults (an error status or a hang) for
/// every domain at once. A domain with no run published answers 404, as an unknown one does.
public final class MockModelRuns: Sendable {
    /// One published run, in the mock's control JSON (`POST /mock/runs`).
    public struct Run: Sendable, Codable, Hashable {
        public var domain: String
        public var initialisedAt: Int64
        public var availableAt: Int64
        /// Seconds between runs (3 h unless said).
        public var updateIntervalSeconds: Int64

        public init(domain: String, initialisedAt: Int64, availableAt: Int64, updateIntervalSeconds: Int64 = 10_800) {
            self.domain = domain
            self.initialisedAt = initialisedAt
            self.availableAt = availableAt
            self.updateIntervalSeconds = updateIntervalSeconds
        }

        enum CodingKeys: String, CodingKey {
            case domain
            case initialisedAt = "initialised_at"
            case availableAt = "available_at"
            case updateIntervalSeconds = "update_interval_seconds"
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            domain = try c.decode(String.self, forKey: .domain)
            initialisedAt = try c.decode(Int64.self, forKey: .initialisedAt)
            availableAt = try c.decode(Int64.self, forKey: .availableAt)
            updateIntervalSeconds = try c.decodeIfPresent(Int64.self, forKey: .updateIntervalSeconds) ?? 10_800
        }
    }

    /// What every metadata request meets (`PUT /mock/meta-faults`): nothing, an error status, or a hang.
    public struct Faults: Sendable, Codable, Hashable {
        /// Answer this status instead (404, 500, …).
        public var status: Int?
        /// Answer only after this many milliseconds.
        public var hangMilliseconds: Int?

        public init(status: Int? = nil, hangMilliseconds: Int? = nil) {
            self.status = status
            self.hangMilliseconds = hangMilliseconds
        }

        enum CodingKeys: String, CodingKey {
            case status
            case hangMilliseconds = "hang_ms"
        }
    }

    struct State {
        var runs: [String: Run] = [:]
        var faults = Faults()
        var requests: [String: Int] = [:]
        var released = false
    }

    private let state = Mutex(State())

    public init() {}

    /// Makes `run` its domain's latest.
    public func publish(_ run: Run) { state.withLock { $0.runs[run.domain] = run } }

    /// Replaces the faults.
    public func setFaults(_ faults: Faults) { state.withLock { $0.faults = faults } }

    /// Metadata requests served, by domain.
    public var requests: [String: Int] { state.withLock { $0.requests } }

    /// Lets hanging answers go (when the mock stops).
    func release() { state.withLock { $0.released = true } }

    func routes(_ router: Router<BasicRequestContext>) {
        router.get("/data/:domain/static/meta.json") { _, context in
            await self.meta(domain: context.parameters.get("domain") ?? "")
        }
        router.post("/mock/runs") { request, _ in
            var request = request
            let body = try await request.collectBody(upTo: 1 << 16)
            guard let run = try? JSONDecoder().decode(Run.self, from: Data(body.readableBytesView)) else {
                return MockOpenMeteo.error("a run is {\"domain\", \"initialised_at\", \"available_at\"}", status: .badRequest)
            }
            self.publish(run)
            return Response(status: .noContent)
        }
        router.put("/mock/meta-faults") { request, _ in
            var request = request
            let body = try await request.collectBody(upTo: 1 << 16)
            guard let faults = try? JSONDecoder().decode(Faults.self, from: Data(body.readableBytesView)) else {
                return MockOpenMeteo.error("faults are {\"status\": 404} or {\"hang_ms\": 10000} or {}", status: .badRequest)
            }
            self.setFaults(faults)
            return Response(status: .noContent)
        }
    }

    func meta(domain: String) async -> Response {
        let (run, faults) = state.withLock { state in
            state.requests[domain, default: 0] += 1
            return (state.runs[domain], state.faults)
        }
        if let hang = faults.hangMilliseconds {
            let clock = ContinuousClock()
            let until = clock.now + .milliseconds(hang)
            while clock.now < until, !state.withLock({ $0.released }) {
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        if let status = faults.status {
            return MockOpenMeteo.error("Injected failure \(status)", status: .init(code: status))
        }
        guard let run else { return MockOpenMeteo.error("Not Found", status: .notFound) }
        let body: [String: Int64] = [
            "last_run_initialisation_time": run.initialisedAt, "last_run_modification_time": run.availableAt - 30,
            "last_run_availability_time": run.availableAt, "temporal_resolution_seconds": 3_600,
            "update_interval_seconds": run.updateIntervalSeconds, "data_end_time": run.initialisedAt + 48 * 3_600,
        ]
        return MockOpenMeteo.json(body, status: .ok)
    }
}
