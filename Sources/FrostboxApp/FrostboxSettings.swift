import FrostboxCore
import FrostboxHTTP
import FrostboxNotifier
import FrostboxPlaceImport
import FrostboxPostgres
import FrostboxSQLite
import Logging

/// Everything the composition root needs to wire a Frostbox. Defaults are the embedded
/// quick-start setup: a SQLite file in the working directory, bundled places, log-only push.
/// Plain values: nothing here reads the environment, a file or the command line; that is
/// `ConfigLoader`'s job, in one place.
public struct FrostboxSettings: Sendable {
    /// Address the HTTP server binds to.
    public var host = "127.0.0.1"
    /// Port the HTTP server binds to (0 picks a free one).
    public var port = 8080
    /// The SQLite file.
    public var databasePath = "./frostbox.sqlite"
    /// The shared PostgreSQL database (`database.url`); nil keeps devices, subscriptions and
    /// the notifier's state in the SQLite file. Places stay local either way.
    public var postgres: PostgresConnectionSettings?
    /// Most connections this instance opens to PostgreSQL (`database.max_connections`).
    public var postgresMaximumConnections = 20
    /// Longest wait for a free PostgreSQL connection before a request is answered 503
    /// `storage_unavailable` (`database.connection_wait`).
    public var postgresConnectionWait: Duration = .seconds(1)
    /// The places file (`places.path`); nil: `NAME-places.sqlite` beside the database.
    public var placesPathSetting: String?
    /// Where places are stored.
    public var placesPath: String { placesPathSetting ?? PlacesDatabase.defaultPath(beside: databasePath) }
    /// How often `serve` looks for a newer places generation when `places.path` is a
    /// directory of generations or a link to one (`places.watch_interval`); zero: only on
    /// `POST /admin/places/reload`.
    public var placesWatchInterval: Duration = .seconds(10)
    /// Most subscriptions one device may hold.
    public var maximumSubscriptionsPerDevice = 50
    /// Log level of the service.
    public var logLevel: Logger.Level = .info
    /// How log lines are written: text, or one JSON object per line (`log.format`).
    public var logFormat: LogFormat = .text
    /// What `serve` imports when no place is stored yet: the extract compiled into the binary
    /// unless `places.seed_path` names a file; nil (an empty `seed_path`): no seeding.
    public var placesSeed: PlacesSeed? = .bundled

    // MARK: Operations and limits
    /// Bearer token of the admin API; nil leaves `/admin` unregistered.
    public var adminToken: AdminToken?
    /// Bearer token `/metrics` asks for (`metrics.token`); nil leaves it open, as Prometheus
    /// scrapes it by default.
    public var metricsToken: AdminToken?
    /// Per-client token bucket on the API (`burst` 0 disables it).
    public var rateLimit = RateLimitSettings()
    /// Places in boxes nobody subscribed to before that one client may add per hour
    /// (`limits.new_boxes_per_hour`; 0 disables the limit).
    public var newBoxesPerHour = 60
    /// The IPv6 network a client is counted by for `newBoxesPerHour` (`limits.new_boxes_ipv6_prefix`).
    public var newBoxesIPv6Prefix = 56
    /// Longest time a request may take to be answered (body read included); 503 after it.
    public var requestTimeout: Duration = .seconds(15)
    /// A request head not complete this long after the connection opened (or after its
    /// first byte, on a kept-alive connection) closes the connection; zero: no limit.
    public var headerTimeout: Duration = .seconds(10)
    /// A kept-alive HTTP connection that sends nothing this long after an answer is closed;
    /// zero: no limit.
    public var idleTimeout: Duration = .seconds(60)
    /// Most HTTP connections open at once; past it a lighter client's new connection
    /// displaces the oldest of the client holding the most, and the heaviest's are refused.
    public var maximumConnections = 1_024
    /// Most HTTP connections one client address (TCP peer; IPv6 by /64) may hold; 0: no cap.
    public var maximumConnectionsPerAddress = 256

    /// The connection limits the HTTP server enforces.
    public var connectionLimits: ConnectionLimits {
        ConnectionLimits(
            headerTimeout: headerTimeout > .zero ? headerTimeout : nil, keepAliveTimeout: idleTimeout > .zero ? idleTimeout : nil,
            maximumConnections: maximumConnections, maximumConnectionsPerAddress: maximumConnectionsPerAddress)
    }
    /// How often the operations report line is logged.
    public var reportInterval: Duration = .seconds(300)

    // MARK: Notifier
    /// Schedule, concurrency, retries and batching of notify runs (interval 1 h, first run
    /// 10 s after start, 32 pushes in flight, 3 sends per run).
    public var notifier = NotifierSettings()
    /// The check of kept nights against what happened (issue #48).
    public var verification = VerificationSettings()
    /// Frost rule preset for subscriptions that name none (`default`, `legacy`).
    public var alertRule = FrostRule.default.name
    /// The rule `alertRule` names (the default preset when it names none): its thresholds are
    /// what verdicts and the checked nights' scores go by.
    public var rule: FrostRule { FrostRule.presets[alertRule] ?? .default }
    /// Nights after tonight that are alerted (1: tomorrow night too; from midnight to noon the
    /// night under way is alerted as well).
    public var alertNightsAhead = 1

    // MARK: Forecasts
    /// Open-Meteo host and key, batch size, quota budgets, cache TTL, forecast days
    /// (`ForecastSettings`).
    public var forecasts = ForecastSettings()

    // MARK: Push
    /// APNs apps (bundle id → `.p8` key or client certificate, environment or host) and the
    /// default app, or a JSON apps file (`apns.apps_file`). None: pushes are only logged.
    public var apns = APNsSettings()
    /// The FCM apps Android devices' alerts go through (`fcm.*`); none: they are logged.
    public var fcm = FCMSettings()
    /// The Web Push apps browsers' alerts go through (`webpush.*`); none: they are logged.
    public var webPush = WebPushSettings()
    /// `devices.verify` as configured; nil: on exactly when a push app is configured.
    public var verifyDevicesSetting: Bool?
    /// `devices.pending_ttl`: a device still pending this long after its first registration
    /// is deleted by the next run (0: never). A week by default.
    public var pendingDeviceTTLSeconds: Int64 = 7 * 86_400

    /// Whether devices must be proven real by a verification push before their places cost
    /// forecasts (`DeviceVerification`): `devices.verify`, by default on when an APNs or FCM
    /// app is configured; never in demo mode (pushes only go to the log there).
    public var verifiesDevices: Bool {
        !demo && (verifyDevicesSetting ?? (!apns.apps.isEmpty || apns.appsFile != nil || !fcm.apps.isEmpty || !webPush.apps.isEmpty))
    }

    // MARK: Demo
    /// `frostbox serve --demo`: forecasts come from the built-in frost scenario
    /// (`DemoForecastProvider`, no network) and pushes only go to the log, whatever APNs apps
    /// are configured, so that made-up frost never reaches a real device.
    public var demo = false
    /// The admin token `demoMode()` made for this run (only when listening on loopback), which
    /// `serve --demo` prints once with the status page's address; nil otherwise.
    public var demoAdminToken: String?

    public init() {}

    /// This configuration in demo mode: the built-in frost scenario, log-only pushes, and
    /// notify runs every 10 s (the first 2 s after start), so a place subscribed to is alerted
    /// in the log within seconds. Without a configured admin token, and when the server
    /// listens on loopback only, a random one is made for the status page (`demoAdminToken`).
    public func demoMode() -> FrostboxSettings {
        var config = self
        config.demo = true
        if config.adminToken == nil, Self.isLoopback(config.host) {
            // 128 bits from the system's random source (getrandom on Linux).
            var random = SystemRandomNumberGenerator()
            let token = (0..<16).map { _ in String(UInt8.random(in: 0...255, using: &random), radix: 16) }
                .map { $0.count == 1 ? "0" + $0 : $0 }.joined()
            config.adminToken = AdminToken(token)
            config.demoAdminToken = token
        }
        config.notifier.firstRunDelay = .seconds(2)
        config.notifier.interval = .seconds(10)
        config.notifier.busyRetryDelay = .seconds(5)
        return config
    }

    /// Whether `host` is a loopback address (or `localhost`): reachable from this machine only.
    static func isLoopback(_ host: String) -> Bool {
        host == "localhost" || host == "::1" || host.hasPrefix("127.")
    }

    /// The line `serve --demo` prints once it listens on `port`: the status page's address and
    /// the admin token made for this run; nil when it made none.
    public func demoStatusLine(port: Int) -> String? {
        guard let token = demoAdminToken else { return nil }
        let address = host.contains(":") ? "[\(host)]" : host
        return "status page: http://\(address):\(port)/status (sign in with any user name and the password \(token): "
            + "this demo run's admin token, for /admin/… too as Authorization: Bearer; loopback only)"
    }
}
