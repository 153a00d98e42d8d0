/// A weather model's run as its source announces it: when it was initialised (its "09Z")
/// and when it became available to clients.
public struct ModelRun: Sendable, Hashable, Codable {
    /// The model's name as the forecast source spells it (`icon_d2`, `gfs_hrrr`).
    public var model: String
    /// The run's initialisation (reference) time, UTC epoch seconds.
    public var initialisedAt: Int64
    /// When the run became available from the source, UTC epoch seconds.
    public var availableAt: Int64

    public init(model: String, initialisedAt: Int64, availableAt: Int64) {
        self.model = model
        self.initialisedAt = initialisedAt
        self.availableAt = availableAt
    }
}

/// Why a model's latest run is not known this time. Remote outcomes are typed.
public enum ModelRunFailure: Error, Sendable, Hashable {
    /// The source has no metadata for the model (a 404: a self-hosted server without it, an
    /// unknown model name).
    case notPublished
    /// The source answered another error status.
    case remote(status: Int)
    /// An answer that did not decode or was too large.
    case invalidResponse(String)
    /// No answer within the deadline.
    case timeout
    /// Connection-level failure.
    case transport(String)
}

/// Where the latest run of each weather model is learnt (Open-Meteo's `meta.json`). Calls to
/// it are not forecast requests: they are never charged to the quota ledger.
public protocol ModelRunSource: Sendable {
    /// The latest run of `model`, or why it is not known.
    func latestRun(of model: String) async -> Result<ModelRun, ModelRunFailure>
}

/// Which weather models a box's forecast depends on: the concrete models asked for, or, for
/// the source's automatic choice (`best_match`), every model of a watch list whose area
/// holds the box.
public enum ForecastModels: Sendable, Hashable {
    /// The source picks the models per place; `watchList` says which may serve where.
    case bestMatch(watchList: ModelWatchList)
    /// These models, wherever the box is.
    case models([String])

    /// The models a forecast of `box` may come from, without repeats, in a stable order.
    public func models(for box: GeoBox) -> [String] {
        switch self {
        case .bestMatch(let watchList): watchList.models(for: box)
        case .models(let models): Self.unique(models)
        }
    }

    static func unique(_ models: [String]) -> [String] {
        var seen = Set<String>()
        return models.filter { seen.insert($0).inserted }
    }
}

/// Which models may serve a place, by region: the first region holding a box's centre gives
/// the models it depends on. Written as text, entries separated by `;`, each
/// `south,west,north,east=model,model` in degrees (a west edge east of the east edge crosses
/// the antimeridian) or `*=model,…` for everywhere else, e.g.
/// `43.2,-3.9,58.1,20.3=icon_d2; *=icon_global`. A place in no region depends on no model
/// and falls back to the time-based TTL.
public struct ModelWatchList: Sendable, Hashable, CustomStringConvertible {
    /// One region and the models watched for it.
    public struct Region: Sendable, Hashable {
        /// The area; nil: everywhere.
        public var area: Area?
        public var models: [String]

        public init(area: Area?, models: [String]) {
            self.area = area
            self.models = models
        }
    }

    /// A latitude/longitude rectangle, degrees.
    public struct Area: Sendable, Hashable {
        public var south: Double
        public var west: Double
        public var north: Double
        public var east: Double

        public init(south: Double, west: Double, north: Double, east: Double) {
            self.south = south
            self.west = west
            self.north = north
            self.east = east
        }

        /// Whether the point lies in the area (edges included).
        public func contains(latitude: Double, longitude: Double) -> Bool {
            guard latitude >= south, latitude <= north else { return false }
            return west <= east ? (longitude >= west && longitude <= east) : (longitude >= west || longitude <= east)
        }
    }

    public var regions: [Region]

    public init(_ regions: [Region]) {
        self.regions = regions
    }

    /// Parses the text form; the error names the entry at fault.
    public init(parsing text: String) throws(ValidationError) {
        func refuse(_ item: String, _ why: String) -> ValidationError {
            ValidationError(.invalidField, field: "watch_list", "\"\(item)\": \(why)")
        }
        var regions: [Region] = []
        for raw in text.split(separator: ";") {
            let item = Self.trimmed(raw)
            guard !item.isEmpty else { continue }
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw refuse(item, "an entry is south,west,north,east=models or *=models") }
            let models = parts[1].split(separator: ",").map { Self.trimmed($0) }
            guard !models.isEmpty, models.allSatisfy(Self.isModelName) else {
                throw refuse(item, "models are names of lower-case letters, digits and _, separated by commas (e.g. icon_d2,icon_eu)")
            }
            let region = Self.trimmed(parts[0])
            if region == "*" {
                regions.append(Region(area: nil, models: models))
                continue
            }
            let numbers = region.split(separator: ",").map { Double(Self.trimmed($0)) }
            guard numbers.count == 4, let south = numbers[0], let west = numbers[1], let north = numbers[2], let east = numbers[3],
                (-90...90).contains(south), (-90...90).contains(north), south <= north, (-180...180).contains(west), (-180...180).contains(east)
            else {
                throw refuse(item, "the region is south,west,north,east in degrees, or *")
            }
            regions.append(Region(area: Area(south: south, west: west, north: north, east: east), models: models))
        }
        guard !regions.isEmpty else { throw ValidationError(.invalidField, field: "watch_list", "the watch list names no region") }
        self.regions = regions
    }

    /// `text` without the spaces, tabs and line breaks around it.
    static func trimmed(_ text: Substring) -> String {
        let blank: Set<Character> = [" ", "\t", "\n", "\r"]
        guard let first = text.firstIndex(where: { !blank.contains($0) }), let last = text.lastIndex(where: { !blank.contains($0) }) else {
            return ""
        }
        return String(text[first...last])
    }

    /// Whether `name` may name a model: 1–64 of a–z, 0–9 and `_`.
    public static func isModelName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 64
            && name.utf8.allSatisfy {
                ($0 >= UInt8(ascii: "a") && $0 <= UInt8(ascii: "z")) || ($0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9")) || $0 == UInt8(ascii: "_")
            }
    }

    /// The models of the first region holding the box's centre (none when no region does).
    public func models(for box: GeoBox) -> [String] {
        let centre = box.centre
        let region = regions.first { $0.area?.contains(latitude: centre.latitude, longitude: centre.longitude) ?? true }
        return ForecastModels.unique(region?.models ?? [])
    }

    /// The text form (parses back to the same list).
    public var description: String {
        regions.map { region in
            let models = region.models.joined(separator: ",")
            guard let area = region.area else { return "*=" + models }
            return "\(area.south),\(area.west),\(area.north),\(area.east)=" + models
        }.joined(separator: "; ")
    }
}

/// Whether a cached forecast is still current, by model run: it is fetched again when a model
/// it depends on has a run newer than the one it came from (once that run has been out for
/// the consistency delay), when it is older than the maximum age, or, for a model whose
/// latest run is not known (its metadata failed), when the time-based TTL has passed. A
/// failed fetch leaves the older forecast cached, so the next run tries again by the same rule.
public struct RunFreshness: Sendable, Hashable {
    /// How long after a run's availability before every server of the source is taken to
    /// serve it (Open-Meteo's servers are eventually consistent: about 10 minutes), seconds.
    public var consistencyDelaySeconds: Int64
    /// A forecast older than this is fetched again whatever the runs say, seconds.
    public var maximumAgeSeconds: Int64
    /// The time-based rule for boxes whose models' runs are not known.
    public var fallback: ForecastFreshness

    public init(consistencyDelaySeconds: Int64 = 600, maximumAgeSeconds: Int64 = 43_200, fallback: ForecastFreshness = ForecastFreshness()) {
        self.consistencyDelaySeconds = max(0, consistencyDelaySeconds)
        self.maximumAgeSeconds = max(1, maximumAgeSeconds)
        self.fallback = fallback
    }

    /// What the rule says of a box's cached forecast.
    public enum Verdict: Sendable, Hashable {
        /// Current: no model it depends on has a newer run.
        case currentByRun
        /// Within the TTL, some of its models' runs unknown.
        case freshByTTL
        /// To be fetched.
        case stale(StaleReason)

        public var isFresh: Bool {
            if case .stale = self { return false }
            return true
        }
    }

    /// Why a forecast is to be fetched.
    public enum StaleReason: Sendable, Hashable {
        case missing
        case newRun(model: String)
        case maximumAge
        case ttlExpired
    }

    /// The earliest fetch time a forecast may have and still be current at `now` by either rule.
    public func freshSince(now: Int64) -> Int64 {
        min(now - maximumAgeSeconds + 1, fallback.freshSince(now: now))
    }

    /// The verdict on `forecast` (nil: none cached) of a box depending on `models`, given the
    /// latest runs known at `now` (a model missing from `latest` is one whose runs are unknown).
    public func verdict(for forecast: BoxForecast?, dependsOn models: [String], latest: [String: ModelRun], now: Int64) -> Verdict {
        verdict(forPayload: forecast, dependsOn: models, latest: latest, now: now)
    }

    /// The verdict on any cached payload (a forecast or an ensemble), by the same rule.
    public func verdict<Payload: BoxPayload>(forPayload forecast: Payload?, dependsOn models: [String], latest: [String: ModelRun], now: Int64) -> Verdict {
        guard let forecast else { return .stale(.missing) }
        guard forecast.fetchedAt > now - maximumAgeSeconds else { return .stale(.maximumAge) }
        var unknown = models.isEmpty
        for model in models {
            guard let run = latest[model] else {
                unknown = true
                continue
            }
            // A run still within its consistency delay may not be served yet: not a reason to fetch.
            guard run.availableAt + consistencyDelaySeconds <= now else { continue }
            if let included = forecast.runs.first(where: { $0.model == model }) {
                if included.availableAt < run.availableAt { return .stale(.newRun(model: model)) }
            } else if forecast.fetchedAt < run.availableAt + consistencyDelaySeconds {
                return .stale(.newRun(model: model))
            }
        }
        guard unknown else { return .currentByRun }
        return fallback.isFresh(fetchedAt: forecast.fetchedAt, now: now) ? .freshByTTL : .stale(.ttlExpired)
    }

    /// The runs a forecast of a box depending on `models`, fetched at `fetchedAt`, is taken to
    /// come from: each model's latest run that had been out for the consistency delay by then
    /// (a newer one may or may not have been served; it is left out, and the forecast is
    /// fetched again once that run is surely served).
    public func runs(includedAt fetchedAt: Int64, models: [String], latest: [String: ModelRun]) -> [ModelRun] {
        models.compactMap { latest[$0] }.filter { $0.availableAt + consistencyDelaySeconds <= fetchedAt }.sorted { $0.model < $1.model }
    }
}

/// One look at a model's latest run: what the source said, and when it was asked.
public struct ModelRunCheck: Sendable, Hashable {
    public var model: String
    /// When the source was asked, UTC epoch seconds.
    public var checkedAt: Int64
    /// The latest run; nil when the source could not say.
    public var run: ModelRun?

    public init(model: String, checkedAt: Int64, run: ModelRun?) {
        self.model = model
        self.checkedAt = checkedAt
        self.run = run
    }
}

/// The models' latest runs as last asked of the source, kept where every instance of one
/// database sees them, so that the instances of a shared run ask once per model between them.
public protocol ModelRunBook: Sendable {
    /// The last checks of `models` made at or after `since`, by model.
    func checks(of models: [String], since: Int64) async throws -> [String: ModelRunCheck]
    /// Records checks, each replacing its model's earlier one.
    func record(_ checks: [ModelRunCheck]) async throws
}
