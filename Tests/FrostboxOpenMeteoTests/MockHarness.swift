import AsyncHTTPClient
import FrostboxCore
import FrostboxOpenMeteo
import Logging
import MockOpenMeteo
import Synchronization

/// A clock that only moves when the code under test sleeps, so tests never wait.
final class ManualForecastClock: ForecastClock {
    private let state: Mutex<(now: Int64, sleeps: [Double])>

    init(now: Int64 = 1_774_000_000) { state = Mutex((now, [])) }

    func now() -> Int64 { state.withLock { $0.now } }

    func sleep(seconds: Double) async throws {
        state.withLock {
            $0.sleeps.append(seconds)
            $0.now += Int64(seconds.rounded(.up))
        }
    }

    func randomFraction() -> Double { 0.5 }

    /// Every sleep asked for, in order.
    var sleeps: [Double] { state.withLock { $0.sleeps } }
}

/// The mock Open-Meteo on a free loopback port and a client pointed at it.
struct MockHarness: Sendable {
    let mock: MockOpenMeteo
    let client: OpenMeteoClient
    let clock: ManualForecastClock
    /// The HTTP client under `client`, for other clients of the same server (metadata).
    let http: HTTPClient

    /// Runs `body` with a fresh mock (playing `scenario`) and a client configured by `configure`.
    static func run(
        _ scenario: MockScenario = MockScenario(), configure: @Sendable (inout OpenMeteoSettings) -> Void = { _ in },
        _ body: @Sendable (MockHarness) async throws -> Void
    ) async throws {
        let mock = MockOpenMeteo(scenario: scenario, logger: Logger(label: "mock", factory: { _ in SwiftLogNoOpLogHandler() }))
        // Generous deadlines: a loaded test machine must not turn answers into timeouts.
        var base = OpenMeteoSettings(requestTimeoutSeconds: 60, connectTimeoutSeconds: 30)
        configure(&base)
        // The HTTP client the app would make for this configuration (connect timeout, no pool retries).
        let http = HTTPClient(eventLoopGroupProvider: .singleton, configuration: base.httpClientConfiguration)
        do {
            try await mock.withRunning { baseURL in
                var configuration = OpenMeteoSettings(baseURL: baseURL, requestTimeoutSeconds: 60, connectTimeoutSeconds: 30)
                configure(&configuration)
                let clock = ManualForecastClock(now: scenario.now ?? 1_774_000_000)
                let client = OpenMeteoClient(
                    httpClient: http, configuration: configuration, clock: clock,
                    logger: Logger(label: "client", factory: { _ in SwiftLogNoOpLogHandler() }))
                try await body(MockHarness(mock: mock, client: client, clock: clock, http: http))
            }
        } catch {
            try await http.shutdown()
            throw error
        }
        try await http.shutdown()
    }
}

/// Boxes in a row along a parallel, `count` of them from (lat, lon), 0.05° apart.
func row(_ count: Int, latitude: Double = 60.2, longitude: Double = 20) -> [GeoBox] {
    let first = Coordinate(uncheckedLatitude: latitude, longitude: longitude).box
    return (0..<count).map { GeoBox(latitudeIndex: first.latitudeIndex + $0 / 200, longitudeIndex: first.longitudeIndex + $0 % 200) }
}

extension Result {
    var failure: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }

    var value: Success? {
        if case .success(let value) = self { return value }
        return nil
    }
}
