import AsyncHTTPClient
import Foundation
import FrostboxCore
import Logging
import NIOCore
import NIOHTTP1
import Synchronization

/// The Open-Meteo `/v1/forecast` client: many boxes per request (their centres as
/// comma-separated `latitude` / `longitude` lists, a form-encoded POST when the URL would
/// be too long), hourly temperature, dew point, cloud cover and wind (°C, %, km/h),
/// `timezone=auto`, `timeformat=unixtime`. Every request has a deadline and a body-size
/// cap; 5xx, timeouts and connections lost after the request was sent are retried with
/// exponential backoff and jitter, a server that cannot be reached at all fails at once; a
/// 429 naming the minutely limit is waited out, the hourly and daily ones are reported as
/// `rateLimited`. An answer that does not decode, is truncated or has another number of
/// locations fails the whole batch. Each attempt reports what the server charged for it
/// (`AttemptCharge`) to the request gate.
public struct OpenMeteoClient: Sendable {
    /// The shared HTTP client, obtained on each request (so its owner may create it lazily).
    let makeHTTPClient: @Sendable () -> HTTPClient
    var httpClient: HTTPClient { makeHTTPClient() }
    /// How this client talks to its server.
    public private(set) var configuration: OpenMeteoSettings
    let clock: any ForecastClock
    let logger: Logger
    /// Set once a server refused a form-encoded POST (404/405/415/501): long lists then go as GETs.
    let postRefused = PostRefusal()

    /// A client over a shared `HTTPClient` (one per purpose, shut down by its owner).
    public init(
        httpClient: HTTPClient, configuration: OpenMeteoSettings = OpenMeteoSettings(), clock: any ForecastClock,
        logger: Logger = Logger(label: "frostbox.open-meteo")
    ) {
        self.init(httpClient: { httpClient }, configuration: configuration, clock: clock, logger: logger)
    }

    /// A client over an `HTTPClient` its owner hands out on demand (created on first use).
    public init(
        httpClient: @escaping @Sendable () -> HTTPClient, configuration: OpenMeteoSettings = OpenMeteoSettings(), clock: any ForecastClock,
        logger: Logger = Logger(label: "frostbox.open-meteo")
    ) {
        self.makeHTTPClient = httpClient
        self.configuration = configuration
        self.clock = clock
        self.logger = logger
    }

    /// This client with other settings, sharing its HTTP client, clock, logger and what it
    /// learnt of the server (a refused POST).
    func with(_ settings: OpenMeteoSettings) -> OpenMeteoClient {
        var copy = self
        copy.configuration = settings
        return copy
    }

    /// The charge per location of this client's requests.
    public var weightPerLocation: Double { configuration.weightPerLocation }

    /// Forecasts for `boxes` (at most `batchSize`; one request plus retries), in their order.
    /// `gate` is consulted before and after every attempt.
    public func forecasts(for boxes: [GeoBox], gate: (any RequestGate)? = nil) async -> Result<[BoxForecast], ForecastFailure> {
        let settings = configuration
        return await fetch(boxes, gate: gate) { body, boxes, now throws(OpenMeteoDecodingError) in
            try OpenMeteoDecoder.forecasts(
                from: body, for: boxes, fetchedAt: now, maximumGridDistance: settings.maximumGridDistanceDegrees, models: settings.models)
        }
    }

    /// What a 200 answer's body decodes into, for the boxes asked, fetched at the given second.
    typealias Decode<Payload> = @Sendable (Data, [GeoBox], Int64) throws(OpenMeteoDecodingError) -> [Payload]

    /// One batch of any product of this server (forecasts, ensembles): one request plus retries.
    func fetch<Payload: Sendable>(_ boxes: [GeoBox], gate: (any RequestGate)?, decode: Decode<Payload>) async -> Result<[Payload], ForecastFailure> {
        guard !boxes.isEmpty else { return .success([]) }
        guard boxes.count <= configuration.batchSize else {
            return .failure(.invalidResponse("a request may carry at most \(configuration.batchSize) locations"))
        }
        var attempt = 1
        var waitedForRateLimit = false
        while true {
            if let refusal = await gate?.admit(locations: boxes.count, attempt: attempt) { return .failure(refusal) }
            let outcome = await requestOnce(boxes, decode: decode)
            await gate?.settle(locations: boxes.count, attempt: attempt, report: outcome.report)
            switch outcome {
            case .success(let forecasts):
                return .success(forecasts)
            case .failure(let failure, let retry, _):
                // A minutely limit is waited out once per batch; a second one means we are not alone on this quota.
                if case .rateLimit = retry {
                    if waitedForRateLimit { return .failure(failure) }
                    waitedForRateLimit = true
                }
                guard let delay = retryDelay(retry, attempt: attempt) else { return .failure(failure) }
                // Named by the API asked (`/v1/forecast`, `/v1/ensemble`, `/v1/archive`): one client serves them all.
                logger.warning(
                    "Open-Meteo request failed, retrying",
                    metadata: [
                        "api": "\(configuration.path)", "failure": "\(failure)", "attempt": "\(attempt)", "delay_s": "\(delay)",
                        "locations": "\(boxes.count)",
                    ])
                do {
                    try await clock.sleep(seconds: delay)
                } catch {
                    return .failure(failure)
                }
                attempt += 1
            }
        }
    }

    /// How a failed attempt may be retried.
    enum Retry {
        /// Not at all (4xx, undecodable 200, hourly / daily 429).
        case never
        /// With exponential backoff, at least `after` seconds when the server said so.
        case backoff(after: Double?)
        /// After the minutely limit resets, `seconds` from now.
        case rateLimit(seconds: Double)
    }

    /// One attempt's outcome, with what the server charged for it.
    enum Attempt<Payload> {
        case success([Payload])
        case failure(ForecastFailure, Retry, charge: AttemptCharge)

        /// What a request gate is told about this attempt.
        var report: AttemptReport {
            switch self {
            case .success:
                return AttemptReport(charge: .fullWeight, succeeded: true)
            case .failure(let failure, _, let charge):
                var pause: QuotaHold?
                if case .rateLimited(let reason, let until?) = failure, RateLimitReason(reason: reason) != .other {
                    pause = QuotaHold(until: until, reason: reason)
                }
                return AttemptReport(charge: charge, succeeded: false, pause: pause)
            }
        }
    }

    func retryDelay(_ retry: Retry, attempt: Int) -> Double? {
        guard attempt < configuration.maximumAttempts else { return nil }
        switch retry {
        case .never:
            return nil
        case .backoff(let after):
            let ceiling = min(configuration.backoffMaximumSeconds, configuration.backoffBaseSeconds * pow(2, Double(attempt - 1)))
            // "Equal jitter": half the delay fixed, half random, so retries of many clients spread out.
            let delay = ceiling / 2 + ceiling / 2 * clock.randomFraction()
            guard let after else { return delay }
            return after <= configuration.maximumRateLimitWaitSeconds ? max(delay, after) : nil
        case .rateLimit(let seconds):
            return seconds <= configuration.maximumRateLimitWaitSeconds ? seconds : nil
        }
    }

    /// One HTTP request for `boxes`, no retries.
    func requestOnce<Payload>(_ boxes: [GeoBox], decode: Decode<Payload>) async -> Attempt<Payload> {
        let request = makeRequest(boxes)
        let isPost = request.method == .POST
        let started = clock.now()
        let deadline = NIODeadline.now() + .milliseconds(Int64(configuration.requestTimeoutSeconds * 1_000))
        // The status, once the server has answered: from then on the attempt costs what that status costs.
        var answered: Int?
        do {
            // No logger for AsyncHTTPClient itself: its debug logs carry the URL, and with it the API key.
            let response = try await httpClient.execute(request, deadline: deadline)
            let status = Int(response.status.code)
            answered = status
            let body = try await response.body.collect(upTo: configuration.maximumBodyBytes)
            let data = Data(body.readableBytesView)
            if isPost, [404, 405, 415, 501].contains(status) {
                // A server (a self-hosted or stand-in one) without POST: say so, and retry the batch as a long GET.
                postRefused.set()
                logger.warning("forecast server refused a form-encoded POST; long lists go as GET from now on", metadata: ["status": "\(status)"])
                return .failure(.remote(status: status, reason: "POST refused"), .backoff(after: nil), charge: .errorAnswer)
            }
            return interpret(status: status, headers: response.headers, body: data, boxes: boxes, at: started, decode: decode)
        } catch let error as NIOTooManyBytesError {
            return .failure(
                .invalidResponse("The answer was larger than \(configuration.maximumBodyBytes) bytes (\(error))."), .never,
                charge: answered == 200 ? .fullWeight : .errorAnswer)
        } catch is CancellationError {
            return .failure(.transport("The forecast request was cancelled."), .never, charge: answered.map(Self.charge(status:)) ?? .fullWeight)
        } catch {
            let attempt: Attempt<Payload> = classify(error)
            // A body cut off after an error status still costs what the status costs.
            if let answered, case .failure(let failure, let retry, _) = attempt {
                return .failure(failure, retry, charge: Self.charge(status: answered))
            }
            return attempt
        }
    }

    /// What an answer with `status` costs at the server.
    static func charge(status: Int) -> AttemptCharge {
        status == 200 ? .fullWeight : .errorAnswer
    }

    /// What an HTTP answer means.
    func interpret<Payload>(
        status: Int, headers: HTTPHeaders, body: Data, boxes: [GeoBox], at now: Int64, decode: Decode<Payload>
    ) -> Attempt<
        Payload
    > {
        switch status {
        case 200:
            do {
                return .success(try decode(body, boxes, now))
            } catch {
                // Open-Meteo charged the request in full whether or not its body decodes.
                return .failure(.invalidResponse(error.description), .never, charge: .fullWeight)
            }
        case 429:
            let reason = Self.reason(in: body) ?? "Too many requests"
            let window = RateLimitReason(reason: reason)
            let headerWait = headers.first(name: "retry-after").flatMap(Double.init)
            switch window {
            case .minute:
                let retryAfter = max(window.retryAfter(now: now) ?? now + 60, now + Int64(headerWait ?? 0))
                return .failure(.rateLimited(reason: reason, retryAfter: retryAfter), .rateLimit(seconds: Double(retryAfter - now)), charge: .errorAnswer)
            case .hour, .day:
                return .failure(.rateLimited(reason: reason, retryAfter: window.retryAfter(now: now)), .never, charge: .errorAnswer)
            case .other:
                return .failure(.rateLimited(reason: reason, retryAfter: headerWait.map { now + Int64($0) }), .backoff(after: headerWait), charge: .errorAnswer)
            }
        case 500...599:
            let reason = Self.reason(in: body) ?? HTTPResponseStatus(statusCode: status).reasonPhrase
            return .failure(
                .remote(status: status, reason: reason), .backoff(after: headers.first(name: "retry-after").flatMap(Double.init)), charge: .errorAnswer)
        default:
            let reason = Self.reason(in: body) ?? HTTPResponseStatus(statusCode: status).reasonPhrase
            return .failure(.remote(status: status, reason: reason), .never, charge: .errorAnswer)
        }
    }

    /// The `reason` of an Open-Meteo error body, if the body is one.
    static func reason(in body: Data) -> String? {
        guard let payload = try? JSONDecoder().decode(OpenMeteoErrorPayload.self, from: body) else { return nil }
        return payload.reason
    }

    // MARK: Request

    /// The query (without `?`) for `boxes`: the same text goes in a GET's URL or a POST's body.
    public func query(for boxes: [GeoBox]) -> String {
        var parts = [
            "latitude=" + boxes.map { Self.degrees(index: $0.latitudeIndex) }.joined(separator: ","),
            "longitude=" + boxes.map { Self.degrees(index: $0.longitudeIndex) }.joined(separator: ","),
            "hourly=" + configuration.hourlyVariables.joined(separator: ","),
            "timezone=" + Self.formEscape(configuration.timezone),
        ]
        if let dates = configuration.dateRange {
            parts.append("start_date=\(dates.lowerBound)")
            parts.append("end_date=\(dates.upperBound)")
        } else {
            parts.append("forecast_days=\(configuration.forecastDays)")
        }
        parts.append("timeformat=unixtime")
        if !configuration.models.isEmpty { parts.append("models=" + configuration.models.map(Self.formEscape).joined(separator: ",")) }
        if let key = configuration.apiKey, !key.isEmpty { parts.append("apikey=" + Self.formEscape(key)) }
        return parts.joined(separator: "&")
    }

    /// A GET, or a form-encoded POST when the URL would pass `maximumURLBytes`.
    public func makeRequest(_ boxes: [GeoBox]) -> HTTPClientRequest {
        let query = query(for: boxes)
        let endpoint = configuration.endpoint
        var request: HTTPClientRequest
        if postRefused.isSet || endpoint.utf8.count + 1 + query.utf8.count <= configuration.maximumURLBytes {
            request = HTTPClientRequest(url: endpoint + "?" + query)
            request.method = .GET
        } else {
            request = HTTPClientRequest(url: endpoint)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.body = .bytes(ByteBuffer(string: query))
        }
        request.headers.add(name: "Accept", value: "application/json")
        request.headers.add(name: "User-Agent", value: "frostbox")
        return request
    }

    /// A box index as degrees with two decimals (`1203` → `60.15`).
    static func degrees(index: Int) -> String {
        let hundredths = abs(index) * 5
        let fraction = hundredths % 100
        return "\(index < 0 ? "-" : "")\(hundredths / 100).\(fraction < 10 ? "0" : "")\(fraction)"
    }

    /// Percent-escapes everything but RFC 3986's unreserved characters.
    static func formEscape(_ text: String) -> String {
        var out = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.append(Character(Unicode.Scalar(byte)))
            default:
                let hex = Array("0123456789ABCDEF")
                out.append("%")
                out.append(hex[Int(byte >> 4)])
                out.append(hex[Int(byte & 0xF)])
            }
        }
        return out
    }
}

/// A flag shared by copies of a client: whether its server refused a POST.
final class PostRefusal: Sendable {
    private let refused = Atomic<Bool>(false)

    var isSet: Bool { refused.load(ordering: .relaxed) }

    func set() { refused.store(true, ordering: .relaxed) }
}
