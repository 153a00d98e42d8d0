import Foundation
import FrostboxCore
import FrostboxHTTP
import FrostboxOpenMeteo
import FrostboxPlaceImport
import FrostboxPostgres
import Logging

/// Every configuration key and how it maps onto `FrostboxSettings`. `data/frostbox.example.yaml`
/// documents the same keys; a test checks that the two agree.
enum ConfigKeys {
    /// Keys whose values are secrets: never logged, never repeated in errors.
    static let secretKeys: Set<String> = ["admin.token", "metrics.token", "forecast.api_key", "database.url", "database.password"]

    static func isSecret(_ key: String) -> Bool { secretKeys.contains(key) }

    static var secretEnvironmentNames: Set<String> { Set(secretKeys.map(ConfigLoader.Reader.environmentName)) }

    static let logLevels = Logger.Level.allCases.map(\.rawValue)

    /// `database.url` with its password (`database.password` or `database.password_file`);
    /// nil when no URL is set (SQLite).
    static func readPostgres(_ r: inout ConfigLoader.Reader, logger: Logger) throws(ConfigurationError) -> PostgresConnectionSettings? {
        let inline = try r.string("database.password", secret: true).flatMap { $0.isEmpty ? nil : $0 }
        let file = try r.string("database.password_file").flatMap { $0.isEmpty ? nil : $0 }
        guard let url = try r.string("database.url", secret: true), !url.isEmpty else {
            if inline != nil || file != nil { throw r.fail("database.url", "a database password is set but no database.url") }
            return nil
        }
        var settings: PostgresConnectionSettings
        do {
            settings = try PostgresConnectionSettings(url: url)
        } catch {
            throw r.fail("database.url", error.message)
        }
        if let path = settings.rootCertificatePath, !FileManager.default.isReadableFile(atPath: path) {
            throw r.fail("database.url", "sslrootcert \(path) does not exist or cannot be read")
        }
        switch (inline, file) {
        case (_?, _?):
            throw r.fail("database.password_file", "set database.password or database.password_file, not both")
        case (let password?, nil):
            settings.password = password
        case (nil, let path?):
            do {
                settings.password = try SecretFile.readText(path, logger: logger)
            } catch {
                throw r.fail("database.password_file", "\(error.problem)")
            }
        case (nil, nil):
            break
        }
        return settings
    }

    /// Reads every key over the defaults of `FrostboxSettings()`.
    static func read(_ r: inout ConfigLoader.Reader, logger: Logger) throws(ConfigurationError) -> FrostboxSettings {
        var config = FrostboxSettings()
        // The loader reads the FROSTBOX_FORECAST_* variables itself (from `Sources`, with the
        // other sources); start from the plain defaults, not the process environment.
        config.forecasts = ForecastSettings()
        config.apns = APNsSettings()

        // server
        if let host = try r.string("server.host") {
            guard !host.isEmpty, !host.contains(where: \.isWhitespace) else { throw r.fail("server.host", "must be a host name or address") }
            config.host = host
        }
        if let port = try r.int("server.port", in: 0...65_535) { config.port = port }
        if let timeout = try r.duration("server.request_timeout", in: .zero ... .seconds(3_600)) { config.requestTimeout = timeout }
        if let timeout = try r.duration("server.idle_timeout", in: .zero ... .seconds(86_400)) { config.idleTimeout = timeout }
        if let timeout = try r.duration("server.header_timeout", in: .zero ... .seconds(3_600)) { config.headerTimeout = timeout }
        if let connections = try r.int("server.max_connections", in: 1...1_000_000) { config.maximumConnections = connections }
        if let connections = try r.int("server.max_connections_per_address", in: 0...1_000_000) { config.maximumConnectionsPerAddress = connections }

        // database, logging
        if let path = try r.filePath("database.path", empty: "", hint: " (create it, or choose another file with --db)") {
            config.databasePath = path
        }
        config.postgres = try readPostgres(&r, logger: logger)
        if let connections = try r.int("database.max_connections", in: 1...1_000) { config.postgresMaximumConnections = connections }
        if let wait = try r.duration("database.connection_wait", in: .milliseconds(10) ... .seconds(60)) { config.postgresConnectionWait = wait }
        if let level = try r.choice("log.level", logLevels) { config.logLevel = Logger.Level(rawValue: level) ?? .info }
        if let format = try r.choice("log.format", LogFormat.allCases.map(\.rawValue)) { config.logFormat = LogFormat(rawValue: format) ?? .text }

        // places
        if let seed = try r.string("places.seed_path") { config.placesSeed = PlacesSeed(setting: seed) }
        if let path = try r.filePath("places.path", empty: " (leave it out for the file beside the database)") {
            config.placesPathSetting = path
        }
        if let interval = try r.duration("places.watch_interval", in: .zero ... .seconds(3_600)) { config.placesWatchInterval = interval }

        // limits
        if let limit = try r.int("limits.subscriptions_per_device", in: 1...10_000) { config.maximumSubscriptionsPerDevice = limit }
        switch try r.choice("devices.verify", ["auto", "true", "yes", "on", "1", "false", "no", "off", "0"]) {
        case nil, "auto": config.verifyDevicesSetting = nil
        case "true", "yes", "on", "1": config.verifyDevicesSetting = true
        default: config.verifyDevicesSetting = false
        }
        if let ttl = try r.duration("devices.pending_ttl", in: .zero ... .seconds(366 * 86_400)) {
            config.pendingDeviceTTLSeconds = ttl.components.seconds
        }
        if let burst = try r.int("limits.rate_limit.burst", in: 0...1_000_000) { config.rateLimit.burst = burst }
        if let rate = try r.double("limits.rate_limit.per_second", in: 0.000_001...1_000_000) { config.rateLimit.refillPerSecond = rate }
        if let clients = try r.int("limits.rate_limit.max_clients", in: 10...10_000_000) { config.rateLimit.maximumClients = clients }
        if let perHour = try r.int("limits.new_boxes_per_hour", in: 0...1_000_000) { config.newBoxesPerHour = perHour }
        if let prefix = try r.int("limits.new_boxes_ipv6_prefix", in: 16...128) { config.newBoxesIPv6Prefix = prefix }
        if try r.bool("limits.rate_limit.trust_forwarded_for") == true {
            throw r.fail(
                "limits.rate_limit.trust_forwarded_for",
                "trusted any peer's X-Forwarded-For and is replaced by limits.rate_limit.trusted_proxies: list your reverse proxies' "
                    + "addresses or networks (e.g. [127.0.0.1, ::1] for a proxy on this host)")
        }
        if let entries = try r.list("limits.rate_limit.trusted_proxies") {
            switch TrustedProxies.parse(entries) {
            case .success(let proxies): config.rateLimit.trustedProxies = proxies
            case .failure(let bad):
                throw r.fail("limits.rate_limit.trusted_proxies", "\"\(bad.entry)\" is not an IP address or network such as 10.0.0.0/8")
            }
        }

        // admin, metrics
        config.adminToken = try readToken(&r, "admin.token", file: "admin.token_file", logger: logger)
        config.metricsToken = try readToken(&r, "metrics.token", file: "metrics.token_file", logger: logger)

        // operations report
        if let interval = try r.duration("report.interval", in: .seconds(1) ... .seconds(86_400)) { config.reportInterval = interval }

        try readNotifier(&r, into: &config)
        try readForecast(&r, into: &config, logger: logger)
        try readAPNs(&r, into: &config.apns, logger: logger)
        try readFCM(&r, into: &config.fcm, logger: logger)
        try readWebPush(&r, into: &config.webPush)
        return config
    }

    /// The forecast keys; their environment names are the `FROSTBOX_FORECAST_*` variables
    /// `ForecastSettings` has always read (`forecast.url` is `FROSTBOX_FORECAST_URL`).
    static func readForecast(_ r: inout ConfigLoader.Reader, into config: inout FrostboxSettings, logger: Logger) throws(ConfigurationError) {
        if let url = try r.string("forecast.url") {
            guard let parsed = URL(string: url), ["http", "https"].contains(parsed.scheme ?? ""), parsed.host != nil else {
                throw r.fail("forecast.url", "must be an http or https URL (got \"\(url)\")")
            }
            config.forecasts.baseURL = url
        }
        let inline = try r.string("forecast.api_key", secret: true)
        let file = try r.string("forecast.api_key_file").flatMap { $0.isEmpty ? nil : $0 }
        if let inline, file != nil, !inline.isEmpty {
            throw r.fail("forecast.api_key_file", "set forecast.api_key or forecast.api_key_file, not both")
        }
        if let inline { config.forecasts.apiKey = inline.isEmpty ? nil : inline }
        if let file {
            do {
                config.forecasts.apiKey = try SecretFile.readText(file, logger: logger)
            } catch {
                throw r.fail("forecast.api_key_file", "\(error.problem)")
            }
        }
        if let batch = try r.int("forecast.batch", in: 1...1_000) { config.forecasts.batchSize = batch }
        if let days = try r.int("forecast.days", in: 1...16) { config.forecasts.forecastDays = days }
        if let budget = try r.double("forecast.budget_minute", in: 0...10_000_000) { config.forecasts.budgets.perMinute = budget }
        if let budget = try r.double("forecast.budget_hour", in: 0...10_000_000) { config.forecasts.budgets.perHour = budget }
        if let budget = try r.double("forecast.budget_day", in: 0...100_000_000) { config.forecasts.budgets.perDay = budget }
        if let ttl = try r.duration("forecast.ttl", in: .zero ... .seconds(7 * 86_400)) { config.forecasts.cacheTTLSeconds = ttl.components.seconds }
        if let wait = try r.duration("forecast.max_wait", in: .zero ... .seconds(86_400)) { config.forecasts.maximumQuotaWaitSeconds = wait.inSeconds }
        if let timeout = try r.duration("forecast.timeout", in: .seconds(1) ... .seconds(600)) { config.forecasts.requestTimeoutSeconds = timeout.inSeconds }
        if let timeout = try r.duration("forecast.connect_timeout", in: .milliseconds(100) ... .seconds(600)) {
            config.forecasts.connectTimeoutSeconds = timeout.inSeconds
        }
        if let concurrency = try r.int("forecast.concurrency", in: 1...64) { config.forecasts.maximumConcurrentRequests = concurrency }
        if let attempts = try r.int("forecast.attempts", in: 1...10) { config.forecasts.maximumAttempts = attempts }
        try readModelRuns(&r, into: &config.forecasts)
    }

    /// Which models the forecasts come from, and how their runs decide when a box is fetched again.
    static func readModelRuns(_ r: inout ConfigLoader.Reader, into forecasts: inout ForecastSettings) throws(ConfigurationError) {
        if let raw = try r.string("forecast.models") {
            let models = raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            if models == [OpenMeteoModels.bestMatch] {
                forecasts.modelNames = []
            } else {
                guard !models.isEmpty, models.count <= OpenMeteoSettings.maximumModels,
                    models.allSatisfy({ $0 != OpenMeteoModels.bestMatch && ModelWatchList.isModelName($0) }), Set(models).count == models.count
                else {
                    throw r.fail(
                        "forecast.models",
                        "must be best_match, or 1–\(OpenMeteoSettings.maximumModels) different Open-Meteo model names in order of "
                            + "preference, comma-separated, such as icon_d2,icon_eu (got \"\(raw)\")")
                }
                forecasts.modelNames = models
            }
        }
        if let raw = try r.string("forecast.watch_list") {
            do {
                forecasts.watchList = try ModelWatchList(parsing: raw)
            } catch {
                throw r.fail("forecast.watch_list", error.message)
            }
        }
        if let runAware = try r.bool("forecast.run_aware") { forecasts.runAware = runAware }
        if let delay = try r.duration("forecast.run_delay", in: .zero ... .seconds(7_200)) { forecasts.runDelaySeconds = delay.components.seconds }
        if let age = try r.duration("forecast.max_age", in: .seconds(600) ... .seconds(7 * 86_400)) { forecasts.maximumAgeSeconds = age.components.seconds }
        if let timeout = try r.duration("forecast.meta_timeout", in: .milliseconds(100) ... .seconds(60)) { forecasts.metaTimeoutSeconds = timeout.inSeconds }
        try readProbability(&r, into: &forecasts)
    }

    /// Where the chance of frost comes from (issue #47).
    static func readProbability(_ r: inout ConfigLoader.Reader, into forecasts: inout ForecastSettings) throws(ConfigurationError) {
        if let source = try r.choice("forecast.probability", ProbabilitySource.allCases.map(\.rawValue)) {
            forecasts.probability = ProbabilitySource(rawValue: source) ?? .spread
        }
        if let url = try r.string("forecast.ensemble.url"), !url.isEmpty {
            guard url.hasPrefix("http://") || url.hasPrefix("https://") else {
                throw r.fail("forecast.ensemble.url", "must be an http or https URL (got \"\(url)\")")
            }
            forecasts.ensembleURL = url
        }
        if let raw = try r.string("forecast.ensemble.models"), !raw.trimmingCharacters(in: .whitespaces).isEmpty {
            let models = raw.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard !models.isEmpty, models.count <= OpenMeteoSettings.maximumModels, models.allSatisfy(ModelWatchList.isModelName),
                Set(models).count == models.count
            else {
                throw r.fail(
                    "forecast.ensemble.models",
                    "must be 1–\(OpenMeteoSettings.maximumModels) different Open-Meteo ensemble model names, comma-separated, such as "
                        + "icon_seamless or ecmwf_ifs025,gfs025 (members) or ecmwf_ifs025_ensemble_mean (spread) (got \"\(raw)\")")
            }
            forecasts.ensembleModelNames = models
        }
        if let members = try r.int("forecast.ensemble.members", in: 0...1_000) { forecasts.ensembleMembers = members == 0 ? nil : members }
        if let chance = try r.double("forecast.min_probability", in: 0...1) { forecasts.defaultMinProbability = chance }
        // The quota is charged by members: a model whose count is not known would be charged too little.
        let unknown = forecasts.ensembleModels.filter { EnsembleWeight.knownMembers[$0] == nil }
        if forecasts.probability == .members, forecasts.ensembleMembers == nil, !unknown.isEmpty {
            throw r.fail(
                "forecast.ensemble.members",
                "must be set for \(unknown.joined(separator: ", ")): its number of members is not known here, and Open-Meteo charges by members")
        }
    }

    static func readNotifier(_ r: inout ConfigLoader.Reader, into config: inout FrostboxSettings) throws(ConfigurationError) {
        if let interval = try r.duration("notifier.interval", in: .seconds(60) ... .seconds(7 * 86_400)) { config.notifier.interval = interval }
        if let delay = try r.duration("notifier.first_run_delay", in: .zero ... .seconds(86_400)) { config.notifier.firstRunDelay = delay }
        if let delay = try r.duration("notifier.busy_retry_delay", in: .seconds(1) ... .seconds(86_400)) { config.notifier.busyRetryDelay = delay }
        if let poll = try r.duration("notifier.join_interval", in: .seconds(1) ... .seconds(3_600)) { config.notifier.joinPollInterval = poll }
        if let lease = try r.duration("notifier.lease", in: .seconds(3) ... .seconds(3_600)) { config.notifier.leaseSeconds = lease.components.seconds }
        if let concurrency = try r.int("notifier.concurrency", in: 1...10_000) { config.notifier.concurrency = concurrency }
        if let attempts = try r.int("notifier.attempts_per_run", in: 1...20) { config.notifier.attemptsPerRun = attempts }
        if let backoff = try r.duration("notifier.retry_backoff", in: .zero ... .seconds(3_600)) { config.notifier.retryBackoff = backoff }
        if let backoff = try r.duration("notifier.max_retry_backoff", in: .zero ... .seconds(3_600)) { config.notifier.maximumRetryBackoff = backoff }
        if let chunk = try r.int("notifier.boxes_per_chunk", in: 1...100_000) { config.notifier.boxesPerChunk = chunk }
        if let page = try r.int("notifier.outbox_page_size", in: 1...100_000) { config.notifier.outboxPageSize = page }
        if let retention = try r.duration("notifier.retention", in: .seconds(3_600) ... .seconds(366 * 86_400)) {
            config.notifier.retentionSeconds = retention.components.seconds
        }
        if let nights = try r.int("notifier.nights_ahead", in: 0...7) { config.alertNightsAhead = nights }
        if let keep = try r.bool("verification.enabled") { config.notifier.keepNights = keep }
        if let retention = try r.duration("verification.retention", in: .seconds(7 * 86_400) ... .seconds(3_660 * 86_400)) {
            config.notifier.nightRetentionSeconds = retention.components.seconds
        }
        try readVerification(&r, into: &config.verification)
        if config.notifier.maximumRetryBackoff < config.notifier.retryBackoff {
            throw r.fail("notifier.max_retry_backoff", "must not be shorter than notifier.retry_backoff")
        }
        if let rule = try r.choice("forecast.rule", FrostRule.presetNames) { config.alertRule = rule }
    }

    /// The check of kept nights against the archive (issue #48).
    static func readVerification(_ r: inout ConfigLoader.Reader, into verification: inout VerificationSettings) throws(ConfigurationError) {
        if let url = try r.string("verification.url") {
            guard url.isEmpty || url.hasPrefix("http://") || url.hasPrefix("https://") else {
                throw r.fail("verification.url", "must be an http or https URL, or empty for the forecast server's archive (got \"\(url)\")")
            }
            verification.url = url.isEmpty ? nil : url
        }
        if let model = try r.string("verification.model") {
            let name = model.trimmingCharacters(in: .whitespaces)
            guard name.isEmpty || ModelWatchList.isModelName(name) else {
                throw r.fail("verification.model", "must be one Open-Meteo archive model name such as ecmwf_ifs or era5 (got \"\(model)\")")
            }
            verification.model = name
        }
        if let days = try r.int("verification.after_days", in: 1...30) { verification.afterDays = days }
        if let share = try r.double("verification.budget_share", in: 0...1) { verification.budgetShare = share }
        if let sample = try r.int("verification.sample_per_region", in: 0...10_000) { verification.samplePerRegion = sample }
    }

    /// A bearer token given inline (`key`) or in a file (`file`, mode 600), not both; nil when
    /// neither is set. At least `AdminToken.minimumLength` characters.
    static func readToken(_ r: inout ConfigLoader.Reader, _ key: String, file fileKey: String, logger: Logger) throws(ConfigurationError) -> AdminToken? {
        let inline = try r.string(key, secret: true).flatMap { $0.isEmpty ? nil : $0 }
        let file = try r.string(fileKey).flatMap { $0.isEmpty ? nil : $0 }
        switch (inline, file) {
        case (_?, _?):
            throw r.fail(fileKey, "set \(key) or \(fileKey), not both")
        case (let token?, nil):
            guard let value = AdminToken(token) else {
                throw r.fail(key, "must be at least \(AdminToken.minimumLength) characters")
            }
            return value
        case (nil, let path?):
            let token: String
            do {
                token = try SecretFile.readText(path, logger: logger)
            } catch {
                throw r.fail(fileKey, "\(error.problem)")
            }
            guard let value = AdminToken(token) else {
                throw r.fail(fileKey, "the token in \(path) must be at least \(AdminToken.minimumLength) characters")
            }
            return value
        case (nil, nil):
            return nil
        }
    }
}
