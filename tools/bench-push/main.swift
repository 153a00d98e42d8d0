import Foundation
import FrostboxAPNs
import FrostboxCore
import Logging
import NIOCore
import NIOPosix

// bench-push: pushes per second through the Frostbox APNs client (release build).
//
//   bench-push --host 127.0.0.1:PORT --trust CERT.pem --key AuthKey.p8 --key-id KEYID --team-id TEAMID
//              [--count 100000] [--concurrency 1000] [--runs 3] [--streams 100] [--connections N]
//
// Each run sends `count` alerts (fresh apns-id and token each; the payload is one frost
// alert, as the alerts of one box and night share theirs) with at most `concurrency` in
// flight, through the router as the notifier uses it: `--streams` per connection, up to
// `--connections` (default: enough for the concurrency). Prints pushes/s and outcomes; the
// last line is the median.

func option(_ name: String, _ fallback: String? = nil) -> String {
    let arguments = CommandLine.arguments
    if let index = arguments.firstIndex(of: "--\(name)"), index + 1 < arguments.count { return arguments[index + 1] }
    guard let fallback else {
        FileHandle.standardError.write(Data("bench-push: --\(name) is required\n".utf8))
        exit(64)
    }
    return fallback
}

let host = option("host")
let trust = option("trust")
let keyPath = option("key")
let keyID = option("key-id")
let teamID = option("team-id")
let count = Int(option("count", "100000"))!
let concurrency = Int(option("concurrency", "1000"))!
let runs = Int(option("runs", "3"))!
let streams = Int(option("streams", "100"))!
let connections = Int(option("connections", String(max(1, (concurrency + streams - 1) / streams))))!
let topic = option("topic", "com.example.frost")

var logger = Logger(label: "bench-push")
logger.logLevel = .warning
guard let endpoint = APNsEndpoint(parsing: host) else { fatalError("bad --host") }
let app = APNsAppSettings(
    bundleID: topic, credentials: .token(try APNsSigningKey(p8Path: keyPath, keyID: keyID, teamID: teamID)),
    environment: .production, customEndpoint: endpoint, trustedCertificatesPath: trust)
var settings = APNsConnectionSettings()
settings.maximumConnections = connections
settings.streamsPerConnection = streams
let router = try APNsPushRouter(apps: [app], settings: settings, clock: { Int64(Date().timeIntervalSince1970) }, logger: logger)

func notification(_ index: Int) -> PushNotification {
    let hex = String(index, radix: 16)
    let token = DeviceToken(trusted: String(repeating: "a", count: 64 - hex.count) + hex)
    return PushNotification(
        token: token, app: topic, messageID: UUID().uuidString.lowercased(), collapseID: "frost-60.20,25.00",
        content: AlertContent(
            title: "Frost tonight", body: "Minimum −3 °C near Tampere", bodyLocKey: "FROST_ALERT", bodyLocArgs: ["-3"],
            sound: "default", group: "frost", interruption: .timeSensitive,
            frost: FrostData(box: "61.50,23.75", night: "2026-11-22", level: "hard", minimumC: -3)))
}

/// One run: `count` pushes handed to the port in batches of `concurrency / 2`, two batches
/// outstanding (as the notifier does). Returns pushes/s and outcome counts.
func run() async -> (Double, [String: Int]) {
    // Built before the clock starts, as the notifier's pushes are built in planning: this
    // measures the port and the transport, not the bench's own UUIDs and strings.
    let pushes = (0..<count).map(notification)
    let start = ContinuousClock.now
    let batchSize = max(1, concurrency / 2)
    let outcomes = await withTaskGroup(of: [String: Int].self) { group in
        var next = 0
        var outcomes: [String: Int] = [:]
        func submit() {
            let batch = Array(pushes[next..<min(count, next + batchSize)])
            next += batch.count
            group.addTask {
                await router.send(batch).collect(into: [String: Int]()) { counts, _, outcome in counts[outcome.failureClass, default: 0] += 1 }
            }
        }
        for _ in 0..<2 where next < count { submit() }
        while let counts = await group.next() {
            outcomes.merge(counts, uniquingKeysWith: +)
            if next < count { submit() }
        }
        return outcomes
    }
    let elapsed = ContinuousClock.now - start
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return (Double(count) / seconds, outcomes)
}

// Warm-up: open the connections and sign the token.
_ = await router.send(notification(0))
var rates: [Double] = []
for index in 1...runs {
    let (rate, outcomes) = await run()
    rates.append(rate)
    let summary = outcomes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    print(String(format: "run %d: %.0f pushes/s (%@)", index, rate, summary))
}
let median = rates.sorted()[rates.count / 2]
print(
    String(
        format: "median: %.0f pushes/s over %d runs of %d (concurrency %d, %d stream(s) × up to %d connection(s))", median, runs, count, concurrency, streams,
        connections))
await router.shutdown()
