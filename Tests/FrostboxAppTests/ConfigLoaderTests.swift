import Crypto
import Foundation
import FrostboxAPNs
import FrostboxDoubles
import FrostboxHTTP
import FrostboxPlaceImport
import Logging
import Testing

@testable import FrostboxApp

@Suite("Configuration loader")
struct ConfigLoaderTests {
    /// `data/frostbox.example.yaml` of this checkout.
    static let exampleURL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("data/frostbox.example.yaml")

    /// A temporary directory removed after `body`.
    static func inDirectory<T>(_ body: (URL) async throws -> T) async throws -> T {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("frostbox-config-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        return try await body(directory)
    }

    static func write(_ text: String, to directory: URL, name: String = "frostbox.yaml", mode: Int = 0o600) throws -> String {
        let path = directory.appendingPathComponent(name).path
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path)
        return path
    }

    static func load(
        file: String? = nil, environment: [String: String] = [:], overrides: [String: String] = [:], logs: RecordingLogHandler.Store = .init()
    ) async throws(ConfigurationError) -> FrostboxSettings {
        try await ConfigLoader.load(.init(configPath: file, environment: environment, overrides: overrides), logger: logs.logger())
    }

    /// Dotted leaf keys of a YAML text (enough for the example file's simple layout).
    static func yamlKeys(_ text: String) -> Set<String> {
        var keys = Set<String>()
        var stack: [(indent: Int, name: String)] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: true) {
            let trimmed = line.drop { $0 == " " }
            guard !trimmed.hasPrefix("#"), let colon = trimmed.firstIndex(of: ":") else { continue }
            let indent = line.count - trimmed.count
            while let last = stack.last, last.indent >= indent { stack.removeLast() }
            let name = String(trimmed[..<colon])
            let full = (stack.map(\.name) + [name]).joined(separator: ".")
            let rest = trimmed[trimmed.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            if rest.isEmpty { stack.append((indent, name)) } else { keys.insert(full) }
        }
        return keys
    }

    @Test("places.seed_path: bundled by default and by name, a file's path, or empty for no seed")
    func seedPath() async throws {
        #expect(FrostboxSettings().placesSeed == .bundled)
        #expect(try await Self.load().placesSeed == .bundled)
        #expect(try await Self.load(environment: ["FROSTBOX_PLACES_SEED_PATH": "bundled"]).placesSeed == .bundled)
        #expect(try await Self.load(environment: ["FROSTBOX_PLACES_SEED_PATH": "/srv/FI.zip"]).placesSeed == .file("/srv/FI.zip"))
        #expect(try await Self.load(environment: ["FROSTBOX_PLACES_SEED_PATH": "./bundled"]).placesSeed == .file("./bundled"))
        #expect(try await Self.load(environment: ["FROSTBOX_PLACES_SEED_PATH": ""]).placesSeed == nil)
    }

    @Test("places.watch_interval: 10 s by default, 0 turns polling off, more than an hour or a non-duration is refused by name")
    func placesWatchInterval() async throws {
        #expect(try await Self.load().placesWatchInterval == .seconds(10))
        #expect(try await Self.load(environment: ["FROSTBOX_PLACES_WATCH_INTERVAL": "0"]).placesWatchInterval == .zero)
        #expect(try await Self.load(overrides: ["places.watch_interval": "500ms"]).placesWatchInterval == .milliseconds(500))
        for bad in ["2h", "soon", "-1s"] {
            let error = await #expect(throws: ConfigurationError.self) { try await Self.load(overrides: ["places.watch_interval": bad]) }
            #expect(error?.key == "places.watch_interval", "\(bad)")
        }
    }

    @Test("devices.verify: auto (on exactly when a push app is configured, never in demo mode), or forced either way")
    func deviceVerification() async throws {
        #expect(try await Self.load().verifiesDevices == false)
        #expect(try await Self.load(environment: ["FROSTBOX_DEVICES_VERIFY": "true"]).verifiesDevices == true)
        #expect(try await Self.load(overrides: ["devices.verify": "off"]).verifyDevicesSetting == false)
        #expect(try await Self.load(overrides: ["devices.verify": "auto"]).verifyDevicesSetting == nil)
        var withApp = FrostboxSettings()
        withApp.apns.appsFile = "/etc/frostbox/apps.json"
        #expect(withApp.verifiesDevices)
        withApp.verifyDevicesSetting = false
        #expect(!withApp.verifiesDevices)
        withApp.verifyDevicesSetting = true
        #expect(!withApp.demoMode().verifiesDevices)
        let error = await #expect(throws: ConfigurationError.self) { try await Self.load(overrides: ["devices.verify": "maybe"]) }
        #expect(error?.key == "devices.verify")
    }

    @Test("the example file loads, documents every key, and its values are the defaults")
    func example() async throws {
        let (config, known) = try await ConfigLoader.loadReporting(
            .init(configPath: Self.exampleURL.path, environment: [:]), logger: Logger(label: "test"))
        let documented = Self.yamlKeys(try String(contentsOf: Self.exampleURL, encoding: .utf8))
        #expect(documented == known, "undocumented: \(known.subtracting(documented).sorted()); unknown: \(documented.subtracting(known).sorted())")
        let defaults = FrostboxSettings()
        #expect(config.host == defaults.host)
        #expect(config.port == defaults.port)
        #expect(config.databasePath == defaults.databasePath)
        #expect(config.placesPath == defaults.placesPath)
        #expect(config.placesWatchInterval == defaults.placesWatchInterval)
        #expect(config.requestTimeout == defaults.requestTimeout)
        #expect(config.idleTimeout == defaults.idleTimeout)
        #expect(config.maximumConnections == defaults.maximumConnections)
        #expect(config.maximumSubscriptionsPerDevice == defaults.maximumSubscriptionsPerDevice)
        #expect(config.verifyDevicesSetting == nil)
        #expect(config.rateLimit == defaults.rateLimit)
        #expect(config.adminToken == nil)
        #expect(config.reportInterval == defaults.reportInterval)
        #expect(config.placesSeed == defaults.placesSeed)
        #expect(config.notifier == defaults.notifier)
        #expect(config.alertRule == defaults.alertRule)
        #expect(config.alertNightsAhead == defaults.alertNightsAhead)
        #expect(config.forecasts == ForecastSettings())
        #expect(config.apns.apps.isEmpty)
        #expect(config.apns.appsFile == nil)
        #expect(config.apns.defaultApp == nil)
        #expect(config.apns.connection.maximumConnections == APNsSettings().connection.maximumConnections)
        #expect(config.apns.connection.streamsPerConnection == APNsSettings().connection.streamsPerConnection)
        #expect(config.apns.connection.requestTimeout == APNsSettings().connection.requestTimeout)
    }

    @Test("no file and no environment: the built-in defaults")
    func defaults() async throws {
        let config = try await Self.load()
        #expect(config.port == 8080)
        #expect(config.databasePath == "./frostbox.sqlite")
        #expect(config.adminToken == nil)
    }

    @Test("a partial file changes only what it names")
    func partial() async throws {
        try await Self.inDirectory { directory in
            let path = try Self.write(
                """
                server:
                  port: 9090
                limits:
                  rate_limit:
                    burst: 5
                notifier:
                  interval: 30m
                forecast:
                  ttl: 90m
                """, to: directory)
            let config = try await Self.load(file: path)
            #expect(config.port == 9090)
            #expect(config.rateLimit.burst == 5)
            #expect(config.rateLimit.refillPerSecond == RateLimitSettings().refillPerSecond)
            #expect(config.notifier.interval == .seconds(1_800))
            #expect(config.notifier.concurrency == NotifierSettingsDefaults.concurrency)
            #expect(config.forecasts.cacheTTLSeconds == 5_400)
            #expect(config.host == "127.0.0.1")
        }
    }

    @Test("precedence: defaults < file < environment < command line, key by key")
    func precedence() async throws {
        try await Self.inDirectory { directory in
            let path = try Self.write("server:\n  port: 1111\n  host: 10.0.0.1\ndatabase:\n  path: /file.sqlite\nlog:\n  level: debug\n", to: directory)
            let environment = ["FROSTBOX_SERVER_PORT": "2222", "FROSTBOX_DATABASE_PATH": "/env.sqlite"]
            let config = try await Self.load(file: path, environment: environment, overrides: ["server.port": "3333"])
            #expect(config.port == 3333)
            #expect(config.databasePath == "/env.sqlite")
            #expect(config.host == "10.0.0.1")
            #expect(config.logLevel == .debug)
            #expect(config.maximumConnections == 1_024)
            let fromEnvironment = try await Self.load(file: path, environment: environment)
            #expect(fromEnvironment.port == 2222)
            // FROSTBOX_CONFIG names the file when --config does not.
            let viaVariable = try await Self.load(environment: ["FROSTBOX_CONFIG": path])
            #expect(viaVariable.port == 1111)
            // The quick start's FROSTBOX_DB still works, below FROSTBOX_DATABASE_PATH.
            #expect(try await Self.load(environment: ["FROSTBOX_DB": "/legacy.sqlite"]).databasePath == "/legacy.sqlite")
            #expect(try await Self.load(environment: ["FROSTBOX_DB": "/a", "FROSTBOX_DATABASE_PATH": "/b"]).databasePath == "/b")
        }
    }

    static let broken: [(String, String, String)] = [
        ("server:\n  port: http\n", "server.port", "whole number"),
        ("server:\n  port: 70000\n", "server.port", "0 to 65535"),
        ("server:\n  prot: 8080\n", "server.prot", "did you mean server.port"),
        ("server:\n  port: [1, 2]\n", "server.port", "single value"),
        ("limits:\n  rate_limit: 5\n", "limits.rate_limit", "unknown key"),
        ("limits:\n  rate_limit:\n    per_second: 0\n", "limits.rate_limit.per_second", "number"),
        ("limits:\n  rate_limit:\n    trust_forwarded_for: maybe\n", "limits.rate_limit.trust_forwarded_for", "true or false"),
        ("limits:\n  rate_limit:\n    trust_forwarded_for: true\n", "limits.rate_limit.trust_forwarded_for", "limits.rate_limit.trusted_proxies"),
        ("limits:\n  rate_limit:\n    trusted_proxies: [127.0.0.1, proxy.local]\n", "limits.rate_limit.trusted_proxies", "\"proxy.local\" is not an IP"),
        ("limits:\n  rate_limit:\n    trusted_proxies: 10.0.0.0/33\n", "limits.rate_limit.trusted_proxies", "is not an IP address or network"),
        ("log:\n  level: loud\n", "log.level", "one of"),
        ("notifier:\n  interval: soon\n", "notifier.interval", "duration"),
        ("notifier:\n  interval: 5s\n", "notifier.interval", "from 1m"),
        ("notifier:\n  retry_backoff: 10s\n  max_retry_backoff: 5s\n", "notifier.max_retry_backoff", "not be shorter"),
        ("forecast:\n  url: ftp://example\n", "forecast.url", "http or https"),
        ("forecast:\n  batch: 5000\n", "forecast.batch", "1 to 1000"),
        ("forecast:\n  rule: frosty\n", "forecast.rule", "default, legacy"),
        ("admin:\n  token: short\n", "admin.token", "at least 16"),
        ("database:\n  path: \"\"\n", "database.path", "must not be empty"),
        ("unexpected: 1\n", "unexpected", "unknown key"),
    ]

    @Test("a broken value stops loading with an error naming the key and the file", arguments: broken)
    func brokenFile(yaml: String, key: String, fragment: String) async throws {
        try await Self.inDirectory { directory in
            let path = try Self.write(yaml, to: directory)
            let error = await #expect(throws: ConfigurationError.self) { try await Self.load(file: path) }
            #expect(error?.key == key, "\(yaml)")
            #expect(error?.source == "file \(path)")
            #expect(error?.description.contains(fragment) == true, "\(error?.description ?? "")")
        }
    }

    @Test("unreadable, malformed or non-mapping files fail with the file named")
    func brokenFiles() async throws {
        try await Self.inDirectory { directory in
            for text in ["server: [1, 2\n", "- a\n- b\n", "just a sentence\n"] {
                let path = try Self.write(text, to: directory)
                let error = await #expect(throws: ConfigurationError.self) { try await Self.load(file: path) }
                #expect(error?.source == "file \(path)", "\(text)")
            }
            let missing = directory.appendingPathComponent("missing.yaml").path
            let error = await #expect(throws: ConfigurationError.self) { try await Self.load(file: missing) }
            #expect(error?.description.contains("does not exist") == true)
        }
    }

    @Test("a YAML syntax error says where and what, and never prints the line: it may hold a secret")
    func syntaxErrorHidesTheLine() async throws {
        try await Self.inDirectory { directory in
            for text in [
                "admin:\n  token: \"s3cr3t-admin-token-0123 unterminated\n",
                "forecast:\n  api_key: s3cr3t-forecast-key\n   - broken: [\n",
                "database:\n  password: s3cr3t-db-password\n  password: s3cr3t-db-password\n",
            ] {
                let path = try Self.write(text, to: directory)
                let error = await #expect(throws: ConfigurationError.self) { try await Self.load(file: path) }
                let message = error?.description ?? ""
                #expect(message.contains("line "), "\(message)")
                #expect(!message.contains("s3cr3t"), "\(message)")
            }
        }
    }

    @Test("bad environment and command-line values name their source")
    func brokenOtherSources() async throws {
        let env = await #expect(throws: ConfigurationError.self) {
            try await Self.load(environment: ["FROSTBOX_LIMITS_RATE_LIMIT_BURST": "-1"])
        }
        #expect(env?.key == "limits.rate_limit.burst")
        #expect(env?.source == "environment FROSTBOX_LIMITS_RATE_LIMIT_BURST")
        let cli = await #expect(throws: ConfigurationError.self) { try await Self.load(overrides: ["server.request_timeout": "forever"]) }
        #expect(cli?.key == "server.request_timeout")
        #expect(cli?.source == "command line")
        // A --set typo is refused, not ignored.
        let typo = await #expect(throws: ConfigurationError.self) { try await Self.load(overrides: ["server.prot": "8081"]) }
        #expect(typo?.key == "server.prot")
        #expect(typo?.source == "command line")
        #expect(typo.map { "\($0)" }?.contains("did you mean server.port") == true)
        #expect(throws: ConfigurationError.self) { try ConfigLoader.overrides(named: [:], settings: ["no-equals-sign"]) }
        #expect(try ConfigLoader.overrides(named: ["server.port": "1", "server.host": nil], settings: ["a.b=c=d"]) == ["server.port": "1", "a.b": "c=d"])
    }

    @Test("secrets: never repeated in errors; token files are read and checked for permissions")
    func secrets() async throws {
        let secret = "not-long-enough"
        let error = await #expect(throws: ConfigurationError.self) { try await Self.load(environment: ["FROSTBOX_ADMIN_TOKEN": secret]) }
        #expect(error?.description.contains(secret) == false)
        try await Self.inDirectory { directory in
            let token = "file-admin-token-0123456789"
            let tokenPath = try Self.write("\(token)\n", to: directory, name: "admin-token", mode: 0o644)
            let logs = RecordingLogHandler.Store()
            let config = try await Self.load(overrides: ["admin.token_file": tokenPath], logs: logs)
            #expect(config.adminToken?.matches(token) == true)
            #expect(logs.all.contains { $0.level == .warning && $0.metadata["path"] == "\(tokenPath)" })
            #expect(!logs.all.contains { $0.description.contains(token) })
            let both = await #expect(throws: ConfigurationError.self) {
                try await Self.load(environment: ["FROSTBOX_ADMIN_TOKEN": token], overrides: ["admin.token_file": tokenPath])
            }
            #expect(both?.key == "admin.token_file")
            let missing = await #expect(throws: ConfigurationError.self) {
                try await Self.load(overrides: ["admin.token_file": directory.appendingPathComponent("nope").path])
            }
            #expect(missing?.key == "admin.token_file")
            let keyPath = try Self.write("sk-open-meteo-key\n", to: directory, name: "om-key")
            #expect(try await Self.load(overrides: ["forecast.api_key_file": keyPath]).forecasts.apiKey == "sk-open-meteo-key")
        }
    }

    @Test(
        "database.url selects PostgreSQL with its password from a file or the environment; bad URLs and stray passwords are refused without repeating secrets")
    func postgresURL() async throws {
        #expect(try await Self.load().postgres == nil)
        let config = try await Self.load(environment: ["FROSTBOX_DATABASE_URL": "postgres://frost@db.internal:6432/frostbox?sslmode=require"])
        #expect(config.postgres?.host == "db.internal")
        #expect(config.postgres?.port == 6432)
        #expect(config.postgres?.user == "frost")
        #expect(config.postgres?.database == "frostbox")
        #expect(config.postgres?.tls == .require)
        #expect(config.postgres?.password == nil)
        let withPassword = try await Self.load(
            environment: ["FROSTBOX_DATABASE_URL": "postgres://frost@db/frostbox", "FROSTBOX_DATABASE_PASSWORD": "pw-from-env"])
        #expect(withPassword.postgres?.password == "pw-from-env")
        try await Self.inDirectory { directory in
            let path = try Self.write("pw-from-file\n", to: directory, name: "pg-password")
            let fromFile = try await Self.load(overrides: ["database.url": "postgres://frost@db/frostbox", "database.password_file": path])
            #expect(fromFile.postgres?.password == "pw-from-file")
            let both = await #expect(throws: ConfigurationError.self) {
                try await Self.load(
                    environment: ["FROSTBOX_DATABASE_PASSWORD": "pw-from-env"],
                    overrides: ["database.url": "postgres://frost@db/frostbox", "database.password_file": path])
            }
            #expect(both?.key == "database.password_file")
        }
        let stray = await #expect(throws: ConfigurationError.self) {
            try await Self.load(environment: ["FROSTBOX_DATABASE_PASSWORD": "pw-from-env"])
        }
        #expect(stray?.key == "database.url")
        let bad = await #expect(throws: ConfigurationError.self) {
            try await Self.load(environment: ["FROSTBOX_DATABASE_URL": "postgres://frost:inline-secret@db/frostbox?sslmode=sometimes"])
        }
        #expect(bad?.key == "database.url")
        #expect(bad?.description.contains("sslmode") == true)
        #expect(bad?.description.contains("inline-secret") == false)
        let missingRoot = await #expect(throws: ConfigurationError.self) {
            try await Self.load(environment: ["FROSTBOX_DATABASE_URL": "postgres://frost@db/frostbox?sslmode=verify-full&sslrootcert=/no/such/ca.pem"])
        }
        #expect(missingRoot?.description.contains("sslrootcert /no/such/ca.pem does not exist") == true)
        #expect(try await Self.load(environment: ["FROSTBOX_DATABASE_MAX_CONNECTIONS": "8"]).postgresMaximumConnections == 8)
    }

    @Test("an empty token leaves the admin API off; other variables are not Frostbox's business")
    func emptyToken() async throws {
        let config = try await Self.load(environment: ["FROSTBOX_ADMIN_TOKEN": "", "OTHER": "x"])
        #expect(config.adminToken == nil)
    }

    @Test("a database in a folder that does not exist stops loading, naming the folder")
    func missingDatabaseFolder() async throws {
        let error = await #expect(throws: ConfigurationError.self) {
            _ = try await Self.load(overrides: ["database.path": "/no/such/folder/frostbox.sqlite"])
        }
        #expect(error?.key == "database.path")
        #expect(error?.message.contains("the folder /no/such/folder does not exist") == true, "\(String(describing: error))")
    }

    @Test("an unknown FROSTBOX_ variable stops loading, naming it and the likely key")
    func unknownEnvironmentVariable() async throws {
        let error = await #expect(throws: ConfigurationError.self) {
            _ = try await Self.load(environment: ["FROSTBOX_SEVRER_PORT": "1", "OTHER": "x"])
        }
        #expect(error?.source == "environment FROSTBOX_SEVRER_PORT")
        #expect(error?.description == "invalid configuration (environment FROSTBOX_SEVRER_PORT): unknown variable (did you mean FROSTBOX_SERVER_PORT?)")
    }

    @Test(
        "durations take units",
        arguments: [
            ("250ms", Duration.milliseconds(250)), ("30s", .seconds(30)), ("5m", .seconds(300)), ("2h", .seconds(7_200)),
            ("7d", .seconds(604_800)), ("45", .seconds(45)), ("1.5s", .milliseconds(1_500)), (" 10 m ", .seconds(600)),
        ])
    func durations(text: String, expected: Duration) {
        #expect(ConfigLoader.Reader.parseDuration(text) == expected)
    }

    @Test("malformed durations are refused", arguments: ["", "s", "-5s", "5 parsecs", "nan", "1e300d"])
    func badDurations(text: String) {
        #expect(ConfigLoader.Reader.parseDuration(text) == nil)
    }
}

/// The notifier's defaults, read once so the partial-file test compares against them.
enum NotifierSettingsDefaults {
    static var concurrency: Int { FrostboxSettings().notifier.concurrency }
}
