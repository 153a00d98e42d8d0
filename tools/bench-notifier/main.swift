import Foundation
import FrostboxAPNs
import FrostboxApp
import FrostboxCore
import FrostboxFCM
import FrostboxNotifier
import FrostboxPostgres
import FrostboxSQLite
import GRDB
import Logging
import _CryptoExtras

// `bench-notifier`: the notifier benchmark.
//
//   bench-notifier generate --db FILE [--subscriptions 1000000] [--boxes 100000] [--seed 1] [--android-every N] [--quiet-percent 0]
//                           [--window-percent 0]
//       A fresh database with that many subscriptions spread over that many boxes
//       (55–70° N, 5–30° E; two places per device, one device in ten with both in one box).
//       With --android-every N, every N-th device is an Android one (2: half of them); with
//       --quiet-percent P, P % of the devices have quiet hours 22:00–07:00; with --window-percent W,
//       W % of the devices' subscriptions have the delivery window 16:00–22:00.
//   bench-notifier run --db FILE --forecast-url URL --now EPOCH [--concurrency 64] [--nights 1]
//                      [--apns-host HOST:PORT --trust CERT.pem --key AuthKey.p8 --key-id ID --team-id ID
//                       [--streams 100] [--connections N]] [--fcm-url https://HOST:PORT --trust CERT.pem [--fcm-messages-per-minute N]] [--prefetch]
//       One notify run against a forecast source (the mock Open-Meteo) and prints its figures.
//       Pushes go to an in-process sender that accepts each at once, or, with --apns-host,
//       through Frostbox's APNs transport (the one `serve` uses) to that server, e.g. the
//       nginx sink of tools/apns-sink; with --fcm-url, Android pushes go through Frostbox's FCM
//       adapter (OAuth2 token from URL/token, v1 messages) to that server, e.g. the same nginx
//       sink, which answers both. With --prefetch, every box's forecast is fetched into
//       the forecast cache before the timed run, which then reads them from the cache: the
//       run's figures without the forecast fetch.
//   bench-notifier run … --probability members|spread|off
//       The chance of frost (issue #47): each box's ensemble is fetched too (with --prefetch,
//       before the timed run) and every subscription is alerted by it at the default 0.5.
//       Default off: the deterministic verdict alone, as the figures before #47.
//   bench-notifier run … --runs N [--no-trim]
//       N notify runs one after another (each fetches every box's forecast again and plans
//       anew; only the first finds alerts to send) and the process's resident size after
//       each; the last line compares the size after the last run with the size after the
//       first. With --no-trim, freed memory is not handed back to the system after each run
//       (as before the fix, for a side-by-side comparison).
//   bench-notifier plan --db FILE --now EPOCH [--repeats 3]
//       Planning alone, with and without the chance of frost, on what a run left in the caches
//       (PlanOnly.swift).
//   bench-notifier check --db FILE --forecast-url URL [--boxes 100000] [--alerted-percent 5] [--sample 30] [--nights 1]
//       The night check of issue #48 alone (CheckOnly.swift): kept nights of that many boxes,
//       checked against the mock's /v1/archive; time, requests, weight and memory.
//   bench-notifier regions --places FILE [--boxes 100000] [--repeats 3]
//       The check's region lookup alone, over a places file (CheckOnly.swift).
//   bench-notifier run --database-url postgres://… --forecast-url URL --now EPOCH […]
//       The same run on PostgreSQL (`database.url`), as a shared run: start this twice at once
//       and the two processes share the run's boxes (each prints its own part).

struct Arguments {
    var values: [String: String] = [:]
    init(_ list: ArraySlice<String>) {
        let items = Array(list)
        var index = 0
        while index < items.count {
            let key = items[index]
            index += 1
            guard key.hasPrefix("--") else { continue }
            // A flag (no value) when the next item is another option or there is none.
            if index < items.count, !items[index].hasPrefix("--") {
                values[String(key.dropFirst(2))] = items[index]
                index += 1
            } else {
                values[String(key.dropFirst(2))] = ""
            }
        }
    }
    func int(_ key: String, _ fallback: Int) -> Int { values[key].flatMap(Int.init) ?? fallback }
    func string(_ key: String) -> String? { values[key] }
}

func generate(_ arguments: Arguments) async throws {
    guard let path = arguments.string("db") else { throw BenchError("--db is required") }
    let subscriptions = arguments.int("subscriptions", 1_000_000)
    let androidEvery = arguments.int("android-every", 0)
    let boxCount = arguments.int("boxes", 100_000)
    var random = SplitMix64(seed: UInt64(arguments.int("seed", 1)))
    for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
    let database = try FrostboxDatabase(path: path, logger: Logger(label: "bench"))
    // Distinct boxes on a 300 × 500 grid of 0.05° cells.
    var chosen = Set<Int>()
    while chosen.count < boxCount { chosen.insert(random.below(300 * 500)) }
    let boxes = chosen.sorted().map { cell in
        Coordinate(uncheckedLatitude: 55 + Double(cell / 500) * 0.05, longitude: 5 + Double(cell % 500) * 0.05)
    }
    let started = ContinuousClock.now
    let devices = (subscriptions + 1) / 2
    let seed = random.next()
    let quietPercent = arguments.int("quiet-percent", 0)
    let windowPercent = arguments.int("window-percent", 0)
    try await database.pool.write { db in
        var random = SplitMix64(seed: seed)
        let device = try db.makeStatement(
            sql: "INSERT INTO device (token, platform, created_at, registered_at, quiet_start, quiet_end) VALUES (?, ?, 1, 1, ?, ?)")
        let subscription = try db.makeStatement(
            sql: """
                INSERT INTO subscription (token, latitude, longitude, box, name, unit, created_at, notify_after, notify_before)
                VALUES (?, ?, ?, ?, ?, ?, 1, ?, ?)
                """)
        var made = 0
        for d in 0..<devices {
            let hex = String(d, radix: 16)
            let android = androidEvery > 0 && d % androidEvery == androidEvery - 1
            // FCM registration tokens are opaque and about 150 characters long.
            let token = android ? "fcm_" + String(repeating: "x", count: 150 - hex.count) + hex : String(repeating: "0", count: 64 - hex.count) + hex
            // Every device in a hundred at the same rank: the quiet ones are spread evenly.
            let quiet = d % 100 < quietPercent
            // Counted from the other end of the hundred, so that windows and quiet hours overlap only past 50 % each.
            let window = 99 - d % 100 < windowPercent
            try device.execute(arguments: [token, android ? "android" : "ios", quiet ? 22 * 60 : nil, quiet ? 7 * 60 : nil])
            // The first places cover every box once, so all of them have a subscription.
            let first = d < boxes.count ? boxes[d] : boxes[random.below(boxes.count)]
            let sameBox = random.below(10) == 0
            for place in 0..<2 where made < subscriptions {
                let base = place == 1 && !sameBox ? boxes[random.below(boxes.count)] : first
                // A point inside the box: within ±0.02° of its centre.
                let c = Coordinate(
                    uncheckedLatitude: base.latitude + Double(random.below(41) - 20) / 1000,
                    longitude: base.longitude + Double(random.below(41) - 20) / 1000)
                try subscription.execute(arguments: [
                    token, c.latitude, c.longitude, c.box.key, place == 0 ? "Home" : "Cabin", random.below(5) == 0 ? "F" : "C",
                    window ? 16 * 60 : nil, window ? 22 * 60 : nil,
                ])
                made += 1
            }
        }
    }
    let counts = try await database.statistics()
    print("generated \(counts.devices) devices, \(counts.subscriptions) subscriptions in \(counts.boxes) boxes in \(ContinuousClock.now - started)")
}

/// Accepts every push at once: measures the notifier without a push transport.
struct DiscardingPushSender: PushSender {
    func send(_ batch: [PushNotification]) -> PushOutcomes { PushOutcomes(batch.map { .delivered(messageID: $0.messageID) }) }
}

func run(_ arguments: Arguments) async throws {
    let postgresURL = arguments.string("database-url")
    guard let path = arguments.string("db") ?? (postgresURL != nil ? NSTemporaryDirectory() + "bench-notifier-places.sqlite" : nil),
        let url = arguments.string("forecast-url"), let now = arguments.string("now").flatMap(Int64.init)
    else { throw BenchError("--db (or --database-url), --forecast-url and --now are required") }
    var config = FrostboxSettings()
    config.databasePath = path
    if let postgresURL { config.postgres = try PostgresConnectionSettings(url: postgresURL) }
    config.forecasts.baseURL = url
    config.forecasts.batchSize = arguments.int("batch", 1_000)
    config.forecasts.budgets = QuotaBudgets(perMinute: 1e9, perHour: 1e9, perDay: 1e9)
    let prefetch = arguments.values["prefetch"] != nil
    config.forecasts.cacheTTLSeconds = prefetch ? 6 * 3_600 : 0
    config.notifier.concurrency = arguments.int("concurrency", 64)
    config.alertNightsAhead = arguments.int("nights", config.alertNightsAhead)
    guard let probability = ProbabilitySource(rawValue: arguments.string("probability") ?? "off") else {
        throw BenchError("--probability is members, spread or off")
    }
    config.forecasts.probability = probability
    var logger = Logger(label: "bench")
    logger.logLevel = .warning
    let components = try await FrostboxApplication.Components.open(config: config, logger: logger)
    // On PostgreSQL the pool runs beside the bench, stopped after it.
    try await components.database.withRunning {
        let push: any PushSender
        var router: APNsPushRouter?
        if let host = arguments.string("apns-host") {
            guard let endpoint = APNsEndpoint(parsing: host), let trust = arguments.string("trust"), let key = arguments.string("key"),
                let keyID = arguments.string("key-id"), let teamID = arguments.string("team-id")
            else { throw BenchError("--apns-host needs a HOST:PORT, --trust, --key, --key-id and --team-id") }
            let app = APNsAppSettings(
                bundleID: "com.example.frost", credentials: .token(try APNsSigningKey(p8Path: key, keyID: keyID, teamID: teamID)),
                environment: .production, customEndpoint: endpoint, trustedCertificatesPath: trust)
            var settings = APNsConnectionSettings()
            settings.streamsPerConnection = arguments.int("streams", settings.streamsPerConnection)
            settings.maximumConnections = arguments.int(
                "connections", max(1, (config.notifier.concurrency + settings.streamsPerConnection - 1) / settings.streamsPerConnection))
            router = try APNsPushRouter(apps: [app], settings: settings, clock: { Int64(Date().timeIntervalSince1970) }, logger: logger)
            push = router!
        } else {
            push = DiscardingPushSender()
        }
        let runs = arguments.int("runs", 1)
        let trim = arguments.values["no-trim"] == nil
        let fcmRouter = try makeFCMRouter(arguments, concurrency: config.notifier.concurrency, logger: logger)
        let sender: any PushSender = fcmRouter.map { PushSenderByPlatform([.ios: push, .android: $0]) } ?? push
        let notifier = Notifier(
            store: components.notifier.store, forecasts: components.forecasts.provider, push: sender,
            planner: AlertPlanner(defaultRuleName: config.alertRule, nightsAhead: config.alertNightsAhead),
            configuration: config.notifier, workQueue: components.notifier.workQueue, logger: logger, clock: { now },
            // Only the repeated runs measure memory; a single run's figures stay without the trim.
            runEnded: { if trim && runs > 1 { ProcessMemory.releaseFree() } }, ensembles: components.forecasts.ensembles)
        if runs > 1 {
            try await repeatRuns(notifier, runs: runs, trim: trim)
            try await components.forecasts.shutdown()
            await router?.shutdown()
            await fcmRouter?.shutdown()
            return
        }
        if prefetch {
            let boxes = try await components.notifier.store.boxesToNotify()
            let fetchStarted = ContinuousClock.now
            var fetched = 0
            for start in stride(from: 0, to: boxes.count, by: config.forecasts.batchSize) {
                let batch = await components.forecasts.provider.forecasts(
                    for: Array(boxes[start..<min(start + config.forecasts.batchSize, boxes.count)]), now: now)
                fetched += batch.forecasts.count
                if let ensembles = components.forecasts.ensembles {
                    _ = await ensembles.ensembles(for: Array(boxes[start..<min(start + config.forecasts.batchSize, boxes.count)]), now: now)
                }
            }
            print("prefetched \(fetched) of \(boxes.count) forecasts into the cache in \(ContinuousClock.now - fetchStarted) (not part of the run)")
        }
        let started = ContinuousClock.now
        guard case .completed(let s) = try await notifier.run() else { throw BenchError("a run is already going") }
        let total = ContinuousClock.now - started
        try await components.forecasts.shutdown()
        await router?.shutdown()
        await fcmRouter?.shutdown()
        let pushesPerSecond = s.deliveryMilliseconds > 0 ? Double(s.alertsDelivered) * 1000 / Double(s.deliveryMilliseconds) : 0
        print(s.line)
        if !s.byPlatform.isEmpty { print("delivered/failed by platform: \(s.byPlatform)") }
        print(
            "boxes \(s.boxes), forecast requests \(s.forecastRequests) (⌈boxes/\(config.forecasts.batchSize)⌉ = \((s.boxes + config.forecasts.batchSize - 1) / config.forecasts.batchSize)), weight \(s.weightUsed)"
        )
        print("planning (verdicts + alerts) \(s.planningMilliseconds) ms; forecasts \(s.forecastMilliseconds) ms; store \(s.storeMilliseconds) ms")
        print("probability \(probability.rawValue): ensembles cached \(s.ensemblesCached), fetched \(s.ensemblesFetched), fallback \(s.probabilityFallback)")
        print("alerts planned \(s.alertsPlanned), delivered \(s.alertsDelivered) in \(s.deliveryMilliseconds) ms: \(Int(pushesPerSecond)) pushes/s")
        let totalMilliseconds = Int(total.components.seconds * 1000 + total.components.attoseconds / 1_000_000_000_000_000)
        if let queue = components.notifier.workQueue {
            for worker in try await queue.workers(ofRuns: [s.id])[s.id] ?? [] {
                print("worker \(worker.worker): boxes \(worker.boxes), planned \(worker.alertsPlanned), delivered \(worker.alertsDelivered)")
            }
        }
        print(
            "total \(total); excluding the forecast fetch \(totalMilliseconds - s.forecastMilliseconds) ms; push: \(router == nil ? "in-process" : "APNs transport")\(fcmRouter == nil ? "" : " + FCM adapter")"
        )
    }
}

/// With --fcm-url, Frostbox's FCM adapter to that server (an OAuth2 token from URL/token signed
/// by a key made here, v1 messages); nil without it.
func makeFCMRouter(_ arguments: Arguments, concurrency: Int, logger: Logger) throws -> FCMPushRouter? {
    guard let fcmURL = arguments.string("fcm-url") else { return nil }
    guard let trust = arguments.string("trust") else { throw BenchError("--fcm-url needs --trust") }
    let account = FCMServiceAccount(
        clientEmail: "bench@bench.iam.gserviceaccount.com", projectID: "bench", tokenURI: fcmURL + "/token",
        privateKey: try _RSA.Signing.PrivateKey(keySize: .bits2048))
    var connection = FCMConnectionSettings()
    connection.maximumConcurrentSends = max(1, concurrency / 2)
    return try FCMPushRouter(
        apps: [
            FCMApp(
                settings: {
                    var settings = FCMAppSettings(packageName: "com.example.frost", serviceAccountPath: "-", url: fcmURL, trustedCertificatesPath: trust)
                    // FCM's quota pacing (--fcm-messages-per-minute 600000 for the default); unpaced unless asked.
                    settings.messagesPerMinute = arguments.int("fcm-messages-per-minute", 0)
                    return settings
                }(), account: account)
        ],
        settings: connection, clock: { Int64(Date().timeIntervalSince1970) }, logger: logger)
}

/// `runs` notify runs, with the resident size after each.
func repeatRuns(_ notifier: Notifier, runs: Int, trim: Bool) async throws {
    func megabytes() -> Double { Double(ProcessMemory.residentBytes() ?? 0) / 1_048_576 }
    let before = megabytes()
    var sizes: [Double] = []
    for index in 1...runs {
        guard case .completed(let s) = try await notifier.run() else { throw BenchError("a run is already going") }
        sizes.append(megabytes())
        print(
            String(
                format: "run %3d: boxes %d, planned %d, delivered %d, %d ms; RSS %.1f MB", index, s.boxes, s.alertsPlanned, s.alertsDelivered,
                s.durationMilliseconds, sizes[index - 1]))
    }
    let first = sizes[0]
    let last = sizes[runs - 1]
    let label = trim ? "trim after each run" : "no trim"
    print(
        label
            + String(
                format: ": RSS before %.1f MB, after run 1 %.1f MB, after run %d %.1f MB (max %.1f MB): ratio last/first %.2f", before, first,
                runs, last, sizes.max() ?? 0, last / first))
}

struct BenchError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

let all = CommandLine.arguments
let arguments = Arguments(all.dropFirst(2))
do {
    switch all.count > 1 ? all[1] : "" {
    case "generate": try await generate(arguments)
    case "run": try await run(arguments)
    case "plan": try await planOnly(arguments)
    case "check": try await checkOnly(arguments)
    case "regions": try await regionsOnly(arguments)
    default: throw BenchError("usage: bench-notifier generate|run|plan|check|regions --db FILE …")
    }
} catch {
    FileHandle.standardError.write(Data("bench-notifier: \(error)\n".utf8))
    exit(1)
}
