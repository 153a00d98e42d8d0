import FrostboxCore
import Synchronization

/// An `ObservationFetcher` whose archive is a function of box and UTC hour, recording each
/// request; it can be told to fail. Weight per location: 1, as Open-Meteo's is for one variable.
public final class ScriptedObservationFetcher: ObservationFetcher {
    /// One request as asked.
    public struct Request: Sendable, Hashable {
        public var boxes: [GeoBox]
        public var first: LocalDate
        public var last: LocalDate
    }

    public let batchSize: Int
    let temperature: @Sendable (GeoBox, Int64) -> Double?
    private let state = Mutex<(requests: [Request], failure: ForecastFailure?)>(([], nil))

    /// `temperature(box, time)`: the observed °C of the hour starting at `time`, nil when not analysed.
    public init(batchSize: Int = 1_000, temperature: @escaping @Sendable (GeoBox, Int64) -> Double?) {
        self.batchSize = batchSize
        self.temperature = temperature
    }

    public func weightPerLocation(days: Int) -> Double { 1 }

    /// Requests so far.
    public var requests: [Request] { state.withLock { $0.requests } }

    /// Makes every later request fail with `failure` (nil: answer again).
    public func fail(with failure: ForecastFailure?) { state.withLock { $0.failure = failure } }

    public func observations(
        for boxes: [GeoBox], from first: LocalDate, through last: LocalDate, gate: (any RequestGate)?
    ) async -> Result<
        [ObservedHours], ForecastFailure
    > {
        if let refusal = await gate?.admit(locations: boxes.count, attempt: 1) { return .failure(refusal) }
        let failure = state.withLock { state -> ForecastFailure? in
            state.requests.append(Request(boxes: boxes, first: first, last: last))
            return state.failure
        }
        await gate?.settle(
            locations: boxes.count, attempt: 1, report: AttemptReport(charge: failure == nil ? .fullWeight : .errorAnswer, succeeded: failure == nil))
        if let failure { return .failure(failure) }
        let start = first.daysSinceEpoch * 86_400
        let end = (last.daysSinceEpoch + 1) * 86_400
        let times = Array(stride(from: start, to: end, by: 3_600))
        return .success(boxes.map { box in ObservedHours(box: box, times: times, temperaturesC: times.map { temperature(box, $0) }) })
    }
}
