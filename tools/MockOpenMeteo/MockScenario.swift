import FrostboxCore

/// What the mock Open-Meteo answers, as a JSON scenario file or built in code: frost forced
/// in chosen boxes, time zones for `timezone=auto`, budgets, faults and a frozen clock.
public struct MockScenario: Sendable, Codable, Hashable {
    /// Boxes whose nights are forced cold.
    public var frost: [FrostSpot]
    /// Forces every box's nights cold the way a spot does (its latitude and longitude are not
    /// used); spots in `frost` still win for their boxes. For benchmarks where every device is alerted.
    public var frostEverywhere: FrostSpot?
    /// Time zones for `timezone=auto` by box; other places use a built-in map, then the
    /// whole-hour zone of their longitude (`Etc/GMT±N`).
    public var timezones: [ZoneSpot]
    /// Weight budgets answering 429 with Open-Meteo's reasons; nil: unlimited.
    public var budgets: MockBudgets?
    /// Faults to inject.
    public var faults: MockFaults
    /// A frozen clock (UTC epoch seconds) instead of the real one.
    public var now: Int64?
    /// When set, requests must carry `apikey` with this value (as the commercial API does).
    public var apiKey: String?
    /// How far the ensemble's members lie from the deterministic temperature, °C: member `i`
    /// of `n` is shifted by `ensembleSpreadC × (2i / (n − 1) − 1)`, evenly from −spread to
    /// +spread (`MockEnsembles`), so the share of members below a threshold is known exactly.
    public var ensembleSpreadC: Double = 2
    /// Every hour clear and calm (cloud 5 %, wind 3 km/h), so that the frost-risk rule comes
    /// down to the temperature alone, as the chance of frost does: a benchmark comparing
    /// planning with and without it then plans the same alerts on both sides.
    public var calm = false
    /// Boxes whose nights `/v1/archive` reports as having followed a frost spot's curve
    /// (issue #48); every other hour is the base weather (frost spots play no part there).
    public var observed: [ObservedSpot] = []
    /// `/v1/archive` answers null for hours at or after this UTC epoch second (not analysed
    /// yet); nil: every hour has a value.
    public var observedMissingAfter: Int64?

    public init(
        frost: [FrostSpot] = [], frostEverywhere: FrostSpot? = nil, timezones: [ZoneSpot] = [], budgets: MockBudgets? = nil, faults: MockFaults = MockFaults(),
        now: Int64? = nil, apiKey: String? = nil, observed: [ObservedSpot] = [], observedMissingAfter: Int64? = nil
    ) {
        self.observed = observed
        self.observedMissingAfter = observedMissingAfter
        self.frost = frost
        self.frostEverywhere = frostEverywhere
        self.timezones = timezones
        self.budgets = budgets
        self.faults = faults
        self.now = now
        self.apiKey = apiKey
    }

    enum CodingKeys: String, CodingKey {
        case frost, timezones, budgets, faults, now
        case frostEverywhere = "frost_everywhere"
        case apiKey = "apikey"
        case ensembleSpreadC = "ensemble_spread_c"
        case calm, observed
        case observedMissingAfter = "observed_missing_after"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        frost = try c.decodeIfPresent([FrostSpot].self, forKey: .frost) ?? []
        frostEverywhere = try c.decodeIfPresent(FrostSpot.self, forKey: .frostEverywhere)
        timezones = try c.decodeIfPresent([ZoneSpot].self, forKey: .timezones) ?? []
        budgets = try c.decodeIfPresent(MockBudgets.self, forKey: .budgets)
        faults = try c.decodeIfPresent(MockFaults.self, forKey: .faults) ?? MockFaults()
        now = try c.decodeIfPresent(Int64.self, forKey: .now)
        apiKey = try c.decodeIfPresent(String.self, forKey: .apiKey)
        ensembleSpreadC = try c.decodeIfPresent(Double.self, forKey: .ensembleSpreadC) ?? 2
        calm = try c.decodeIfPresent(Bool.self, forKey: .calm) ?? false
        observed = try c.decodeIfPresent([ObservedSpot].self, forKey: .observed) ?? []
        observedMissingAfter = try c.decodeIfPresent(Int64.self, forKey: .observedMissingAfter)
    }
}

/// A box whose nights (local 18:00 to 10:00 the next morning, in the zone `timezone=auto`
/// gives it) were observed to follow a frost spot's curve exactly: `minimumC` at 05:00 local,
/// 0.6 °C more for each hour away, whether colder or warmer than the base weather.
public struct ObservedSpot: Sendable, Codable, Hashable {
    public var latitude: Double
    public var longitude: Double
    /// Lowest temperature of each of its nights, °C.
    public var minimumC: Double
    /// Which nights, by the date of their evening; nil: every night.
    public var nights: [LocalDate]?

    public init(latitude: Double, longitude: Double, minimumC: Double = -4, nights: [LocalDate]? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.minimumC = minimumC
        self.nights = nights
    }

    enum CodingKeys: String, CodingKey {
        case latitude, longitude, nights
        case minimumC = "minimum_c"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        latitude = try c.decode(Double.self, forKey: .latitude)
        longitude = try c.decode(Double.self, forKey: .longitude)
        minimumC = try c.decodeIfPresent(Double.self, forKey: .minimumC) ?? -4
        nights = try c.decodeIfPresent([String].self, forKey: .nights).map { texts in
            try texts.map { text in
                guard let date = LocalDate(text: text) else {
                    throw DecodingError.dataCorruptedError(forKey: .nights, in: c, debugDescription: "night \(text) is not YYYY-MM-DD")
                }
                return date
            }
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(latitude, forKey: .latitude)
        try c.encode(longitude, forKey: .longitude)
        try c.encode(minimumC, forKey: .minimumC)
        try c.encodeIfPresent(nights?.map(\.description), forKey: .nights)
    }

    var box: GeoBox { Coordinate(uncheckedLatitude: latitude, longitude: longitude).box }
}

/// A box whose nights (local 18:00–10:00) are forced cold: the temperature falls to
/// `minimumC` at 05:00 local under `cloudCover` % and `windSpeed` km/h.
public struct FrostSpot: Sendable, Codable, Hashable {
    public var latitude: Double
    public var longitude: Double
    /// Lowest temperature of each forced night, °C.
    public var minimumC: Double
    /// Cloud cover during forced nights, %.
    public var cloudCover: Double
    /// Wind during forced nights, km/h.
    public var windSpeed: Double
    /// Which nights, counted from the first evening of the answer (0); nil: every night.
    public var nights: [Int]?

    public init(latitude: Double, longitude: Double, minimumC: Double = -4, cloudCover: Double = 5, windSpeed: Double = 3, nights: [Int]? = nil) {
        self.latitude = latitude
        self.longitude = longitude
        self.minimumC = minimumC
        self.cloudCover = cloudCover
        self.windSpeed = windSpeed
        self.nights = nights
    }

    enum CodingKeys: String, CodingKey {
        case latitude, longitude, nights
        case minimumC = "minimum_c"
        case cloudCover = "cloud_cover"
        case windSpeed = "wind_speed"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        latitude = try c.decode(Double.self, forKey: .latitude)
        longitude = try c.decode(Double.self, forKey: .longitude)
        minimumC = try c.decodeIfPresent(Double.self, forKey: .minimumC) ?? -4
        cloudCover = try c.decodeIfPresent(Double.self, forKey: .cloudCover) ?? 5
        windSpeed = try c.decodeIfPresent(Double.self, forKey: .windSpeed) ?? 3
        nights = try c.decodeIfPresent([Int].self, forKey: .nights)
    }

    var box: GeoBox { Coordinate(uncheckedLatitude: latitude, longitude: longitude).box }
}

/// The IANA zone `timezone=auto` resolves to in a box.
public struct ZoneSpot: Sendable, Codable, Hashable {
    public var latitude: Double
    public var longitude: Double
    public var timezone: String

    public init(latitude: Double, longitude: Double, timezone: String) {
        self.latitude = latitude
        self.longitude = longitude
        self.timezone = timezone
    }

    var box: GeoBox { Coordinate(uncheckedLatitude: latitude, longitude: longitude).box }
}

/// Weight budgets per calendar minute, hour and UTC day, as the free API counts them
/// (weight per location = max(1, variables / 10 × max(1, days / 14))); nil: unlimited.
public struct MockBudgets: Sendable, Codable, Hashable {
    public var minute: Double?
    public var hour: Double?
    public var day: Double?

    public init(minute: Double? = nil, hour: Double? = nil, day: Double? = nil) {
        self.minute = minute
        self.hour = hour
        self.day = day
    }

    /// The free API's limits.
    public static let openMeteoFree = MockBudgets(minute: 600, hour: 5_000, day: 10_000)
}

/// Faults the mock injects. Rates are applied deterministically (a fixed-seed generator),
/// the `next…` queues to the next requests in order.
public struct MockFaults: Sendable, Codable, Hashable {
    /// Fraction of requests answered with `serverErrorStatus`.
    public var serverErrorRate: Double
    /// The status of injected server errors.
    public var serverErrorStatus: Int
    /// Fraction of 200 answers cut in half (a well-formed HTTP message, broken JSON).
    public var truncateRate: Double
    /// Delay before every answer, milliseconds.
    public var latencyMilliseconds: Int
    /// Statuses for the next requests, one each (e.g. `[503, 503]`); 429 uses the minutely reason.
    public var nextStatuses: [Int]
    /// 429 reasons for the next requests, one each (`minute`, `hour`, `day` or a literal reason).
    public var nextRateLimits: [String]
    /// The next this-many 200 answers are truncated.
    public var truncateNext: Int
    /// The next this-many 200 answers leave out their last location.
    public var dropLocationNext: Int
    /// The next this-many 200 answers come in reverse order without `location_id`.
    public var scrambleNext: Int
    /// Answer every POST with 405, as a server that only knows GET would.
    public var refusePost: Bool
    /// The next this-many requests that would be answered 200 are processed and charged, but
    /// answered only after `hangMilliseconds` (a client with a shorter deadline times out).
    public var hangNext: Int
    /// Fraction of requests that would be answered 200 left hanging the same way.
    public var hangRate: Double
    /// How long a hanging answer waits, milliseconds.
    public var hangMilliseconds: Int

    public init(
        serverErrorRate: Double = 0, serverErrorStatus: Int = 503, truncateRate: Double = 0, latencyMilliseconds: Int = 0, nextStatuses: [Int] = [],
        nextRateLimits: [String] = [], truncateNext: Int = 0, dropLocationNext: Int = 0, scrambleNext: Int = 0, refusePost: Bool = false,
        hangNext: Int = 0, hangRate: Double = 0, hangMilliseconds: Int = 2_000
    ) {
        self.serverErrorRate = serverErrorRate
        self.serverErrorStatus = serverErrorStatus
        self.truncateRate = truncateRate
        self.latencyMilliseconds = latencyMilliseconds
        self.nextStatuses = nextStatuses
        self.nextRateLimits = nextRateLimits
        self.truncateNext = truncateNext
        self.dropLocationNext = dropLocationNext
        self.scrambleNext = scrambleNext
        self.refusePost = refusePost
        self.hangNext = hangNext
        self.hangRate = hangRate
        self.hangMilliseconds = hangMilliseconds
    }

    enum CodingKeys: String, CodingKey {
        case serverErrorRate = "server_error_rate"
        case serverErrorStatus = "server_error_status"
        case truncateRate = "truncate_rate"
        case latencyMilliseconds = "latency_ms"
        case nextStatuses = "next_statuses"
        case nextRateLimits = "next_rate_limits"
        case truncateNext = "truncate_next"
        case dropLocationNext = "drop_location_next"
        case scrambleNext = "scramble_next"
        case refusePost = "refuse_post"
        case hangNext = "hang_next"
        case hangRate = "hang_rate"
        case hangMilliseconds = "hang_ms"
    }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        serverErrorRate = try c.decodeIfPresent(Double.self, forKey: .serverErrorRate) ?? 0
        serverErrorStatus = try c.decodeIfPresent(Int.self, forKey: .serverErrorStatus) ?? 503
        truncateRate = try c.decodeIfPresent(Double.self, forKey: .truncateRate) ?? 0
        latencyMilliseconds = try c.decodeIfPresent(Int.self, forKey: .latencyMilliseconds) ?? 0
        nextStatuses = try c.decodeIfPresent([Int].self, forKey: .nextStatuses) ?? []
        nextRateLimits = try c.decodeIfPresent([String].self, forKey: .nextRateLimits) ?? []
        truncateNext = try c.decodeIfPresent(Int.self, forKey: .truncateNext) ?? 0
        dropLocationNext = try c.decodeIfPresent(Int.self, forKey: .dropLocationNext) ?? 0
        scrambleNext = try c.decodeIfPresent(Int.self, forKey: .scrambleNext) ?? 0
        refusePost = try c.decodeIfPresent(Bool.self, forKey: .refusePost) ?? false
        hangNext = try c.decodeIfPresent(Int.self, forKey: .hangNext) ?? 0
        hangRate = try c.decodeIfPresent(Double.self, forKey: .hangRate) ?? 0
        hangMilliseconds = try c.decodeIfPresent(Int.self, forKey: .hangMilliseconds) ?? 2_000
    }
}

/// What the mock has served, for tests and benchmarks to read.
public struct MockCounters: Sendable, Codable, Hashable {
    /// Requests to `/v1/forecast`, whatever the answer (ensemble requests are counted apart).
    public var requests = 0
    public var getRequests = 0
    public var postRequests = 0
    /// Locations in requests answered 200.
    public var locations = 0
    /// Weight of the requests it processed (answered 200, truncated, or left hanging).
    public var weight = 0.0
    /// Everything it charged: `weight` plus 1 for every error answer (4xx, 5xx, 429). A
    /// client's quota ledger should hold exactly this.
    public var chargedWeight = 0.0
    /// Requests processed but left hanging past the client's deadline.
    public var hung = 0
    /// Answers by status.
    public var statuses: [String: Int] = [:]
    /// Locations per request answered 200, in order.
    public var batchSizes: [Int] = []
    /// Requests to `/v1/ensemble` (not in `requests`), their locations answered and weight
    /// processed (not in `locations` and `weight`; `chargedWeight` counts both endpoints).
    public var ensembleRequests = 0
    public var ensembleLocations = 0
    public var ensembleWeight = 0.0
    /// Requests to `/v1/archive` (not in `requests`), their locations answered and weight
    /// processed (not in `locations` and `weight`; `chargedWeight` counts them too).
    public var archiveRequests = 0
    public var archiveLocations = 0
    public var archiveWeight = 0.0

    public init() {}

    enum CodingKeys: String, CodingKey {
        case requests, locations, weight, statuses
        case ensembleRequests = "ensemble_requests"
        case ensembleLocations = "ensemble_locations"
        case ensembleWeight = "ensemble_weight"
        case archiveRequests = "archive_requests"
        case archiveLocations = "archive_locations"
        case archiveWeight = "archive_weight"
        case getRequests = "get_requests"
        case postRequests = "post_requests"
        case batchSizes = "batch_sizes"
        case chargedWeight = "charged_weight"
        case hung
    }
}
