import Foundation
import FrostboxCore
import HTTPTypes
import Hummingbird
import NIOCore

/// A parsed `/v1/archive` request: hourly `temperature_2m` over whole days of UTC.
struct ArchiveRequest: Sendable {
    var boxes: [GeoBox]
    var startDate: LocalDate
    var endDate: LocalDate
    var unixTime: Bool
    var fahrenheit: Bool
    /// The models asked for (`models=`); empty: `best_match`.
    var models: [String]

    /// Days asked for, both ends included.
    var days: Int { Int(endDate.daysSinceEpoch - startDate.daysSinceEpoch) + 1 }

    /// Open-Meteo's charge, the one variable counted again for each model.
    var weight: Double { Double(boxes.count) * ForecastRequest.weightPerLocation(variables: max(1, models.count), days: days) }

    /// The most days one request may span.
    static let maximumDays = 366

    static func parse(_ p: [String: String]) -> Result<ArchiveRequest, ForecastRequest.Invalid> {
        typealias Invalid = ForecastRequest.Invalid
        let boxes: [GeoBox]
        switch ForecastRequest.locations(p) {
        case .failure(let invalid): return .failure(invalid)
        case .success(let parsed): boxes = parsed.boxes
        }
        if let unknown = ForecastRequest.list(p, "hourly").first(where: { !$0.isEmpty && $0 != "temperature_2m" }) {
            return .failure(Invalid(reason: "Cannot initialize ForecastVariable from invalid String value \(unknown)."))
        }
        guard let startText = p["start_date"], let endText = p["end_date"] else {
            return .failure(Invalid(reason: "Parameter 'start_date' and 'end_date' are required"))
        }
        guard let start = date(startText), let end = date(endText) else {
            return .failure(Invalid(reason: "Invalid date format. Make sure to use 'YYYY-MM-DD'"))
        }
        guard start <= end else { return .failure(Invalid(reason: "End-date must be larger or equals than start-date")) }
        guard Int(end.daysSinceEpoch - start.daysSinceEpoch) < maximumDays else {
            return .failure(Invalid(reason: "Date range may span at most \(maximumDays) days"))
        }
        guard ["GMT", "UTC"].contains(p["timezone"] ?? "GMT") else {
            return .failure(Invalid(reason: "The mock archive answers in GMT or UTC only"))
        }
        let timeformat = p["timeformat"] ?? "iso8601"
        guard timeformat == "iso8601" || timeformat == "unixtime" else { return .failure(Invalid(reason: "Invalid timeformat")) }
        let temperatureUnit = p["temperature_unit"] ?? "celsius"
        guard temperatureUnit == "celsius" || temperatureUnit == "fahrenheit" else {
            return .failure(Invalid(reason: "Invalid temperature_unit"))
        }
        let models = ForecastRequest.list(p, "models").filter { !$0.isEmpty && $0 != "best_match" }
        return .success(
            ArchiveRequest(
                boxes: boxes, startDate: start, endDate: end, unixTime: timeformat == "unixtime", fahrenheit: temperatureUnit == "fahrenheit",
                models: models))
    }

    /// A real calendar date written `YYYY-MM-DD` (not 2026-02-30).
    static func date(_ text: String) -> LocalDate? {
        guard text.count == 10, let date = LocalDate(text: text), LocalDate(daysSinceEpoch: date.daysSinceEpoch) == date else { return nil }
        return date
    }
}

/// `/v1/archive`, what happened (issue #48): the base weather, observed spots' nights on their
/// curve, nulls from `observed_missing_after` on; the same key check, injected faults, budgets
/// and charges as `/v1/forecast`, counted apart.
extension MockOpenMeteo {
    /// Replaces the observed spots and the first hour not analysed yet (nil: none missing).
    public func setObserved(_ spots: [ObservedSpot], missingAfter: Int64? = nil) {
        state.withLock {
            $0.scenario.observed = spots
            $0.scenario.observedMissingAfter = missingAfter
        }
    }

    func archiveRoutes(_ router: Router<BasicRequestContext>) {
        router.get("/v1/archive") { request, _ in
            await self.archive(query: request.uri.query ?? "", method: .get)
        }
        router.post("/v1/archive") { request, _ in
            var request = request
            let body = try await request.collectBody(upTo: 4 << 20)
            return await self.archive(query: String(buffer: body), method: .post)
        }
    }

    func archive(query: String, method: HTTPRequest.Method) async -> Response {
        let parameters = Self.parse(query)
        enum Outcome {
            case error(status: Int, reason: String)
            case served(ArchiveRequest, Fault, MockScenario)
        }
        let (outcome, latency) = state.withLock { state -> (Outcome, Int) in
            state.counters.archiveRequests += 1
            let latency = state.scenario.faults.latencyMilliseconds
            if method == .post, state.scenario.faults.refusePost { return (.error(status: 405, reason: "Method not allowed"), 0) }
            if let refusal = keyRefusal(state, parameters: parameters) { return (.error(status: refusal.status, reason: refusal.reason), latency) }
            let request: ArchiveRequest
            switch ArchiveRequest.parse(parameters) {
            case .failure(let invalid): return (.error(status: 400, reason: invalid.reason), latency)
            case .success(let parsed): request = parsed
            }
            if let refusal = refusal(&state) { return (.error(status: refusal.status, reason: refusal.reason), latency) }
            charge(&state, weight: request.weight)
            state.counters.archiveLocations += request.boxes.count
            state.counters.archiveWeight += request.weight
            return (.served(request, servedFault(&state), state.scenario), latency)
        }
        if latency > 0 { try? await Task.sleep(for: .milliseconds(latency)) }
        let response: Response
        switch outcome {
        case .error(let status, let reason):
            response = Self.error(reason, status: HTTPResponse.Status(code: status))
            state.withLock { self.charge(&$0, weight: 1) }
        case .served(let request, let fault, let scenario):
            await hang(fault)
            response = Self.renderArchive(request, fault: fault, scenario: scenario)
        }
        state.withLock { $0.counters.statuses["\(response.status.code)", default: 0] += 1 }
        return response
    }

    static func renderArchive(_ request: ArchiveRequest, fault: Fault, scenario: MockScenario) -> Response {
        var locations = Array(request.boxes.enumerated())
        if fault == .dropLocation, locations.count > 0 { locations.removeLast() }
        let single = request.boxes.count == 1 && fault != .dropLocation
        var writer = MockResponseWriter(capacity: locations.count * request.days * 24 * 20 * max(1, request.models.count) + 1_024)
        if !single { writer.raw("[") }
        let ordered = fault == .scramble ? Array(locations.reversed()) : locations
        for (position, (id, box)) in ordered.enumerated() {
            if position > 0 { writer.raw(",") }
            writer.archiveLocation(request: request, box: box, locationID: single || fault == .scramble ? nil : id, scenario: scenario)
        }
        if !single { writer.raw("]") }
        var bytes = writer.bytes
        if fault == .truncate { bytes.removeLast(bytes.count / 2) }
        return Response(
            status: .ok, headers: [.contentType: "application/json; charset=utf-8"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}

extension MockWeather {
    /// What happened at `box` in the UTC hour `time`: an observed spot's curve during its
    /// nights (in the box's `timezone=auto` zone), the base weather otherwise; nil once the
    /// hour is past what the archive has analysed.
    static func observed(box: GeoBox, time: Int64, scenario: MockScenario) -> Double? {
        if let missing = scenario.observedMissingAfter, time >= missing { return nil }
        let zone = TimeZone(identifier: autoZone(for: box, scenario: scenario)) ?? TimeZone(secondsFromGMT: 0)!
        let offset = Int64(zone.secondsFromGMT(for: Date(timeIntervalSince1970: TimeInterval(time))))
        let local = LocalDateTime(wallClockSeconds: time + offset)
        if let spot = scenario.observed.first(where: { $0.box == box }), let night = nightDate(of: local),
            spot.nights.map({ $0.contains(night) }) ?? true
        {
            return nightCurve(minimumC: spot.minimumC, local: local)
        }
        return hour(box: box, time: time, local: local).temperature
    }
}

extension MockResponseWriter {
    /// One location of an archive answer: UTC hours from the first day's midnight to the last
    /// day's 23:00, one `temperature_2m` series per model (the k-th model k × 0.3 °C above the
    /// first, as on `/v1/forecast`).
    mutating func archiveLocation(request: ArchiveRequest, box: GeoBox, locationID: Int?, scenario: MockScenario) {
        let grid = MockWeather.gridCell(box)
        raw("{\"latitude\":\(grid.latitude),\"longitude\":\(grid.longitude),\"generationtime_ms\":0.5,\"utc_offset_seconds\":0,")
        raw("\"timezone\":\"GMT\",\"timezone_abbreviation\":\"GMT\",\"elevation\":\(MockWeather.elevation(box))")
        if let locationID { raw(",\"location_id\":\(locationID)") }
        let suffixes = request.models.count > 1 ? request.models.map { "_" + $0 } : [""]
        raw(",\"hourly_units\":{\"time\":\"\(request.unixTime ? "unixtime" : "iso8601")\"")
        for suffix in suffixes { raw(",\"temperature_2m\(suffix)\":\"\(request.fahrenheit ? "°F" : "°C")\"") }
        raw("},\"hourly\":{\"time\":[")
        let start = request.startDate.daysSinceEpoch * 86_400
        let times = (0..<Int64(request.days * 24)).map { start + $0 * 3_600 }
        for (i, time) in times.enumerated() {
            if i > 0 { raw(",") }
            if request.unixTime {
                integer(time)
            } else {
                raw("\"\(LocalDateTime(wallClockSeconds: time))\"")
            }
        }
        raw("]")
        let values = times.map { MockWeather.observed(box: box, time: $0, scenario: scenario) }
        for (k, suffix) in suffixes.enumerated() {
            raw(",\"temperature_2m\(suffix)\":[")
            for (i, value) in values.enumerated() {
                if i > 0 { raw(",") }
                guard let value else {
                    raw("null")
                    continue
                }
                let celsius = value + Double(k) * 0.3
                tenths(request.fahrenheit ? celsius * 9 / 5 + 32 : celsius)
            }
            raw("]")
        }
        raw("}}")
    }
}
