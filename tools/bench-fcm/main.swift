import Foundation
import FrostboxCore
import FrostboxFCM
import Logging
import _CryptoExtras

// bench-fcm: messages per second through the Frostbox FCM adapter (release build).
//
//   bench-fcm --url https://127.0.0.1:PORT --trust CERT.pem [--count 100000] [--concurrency 1000] [--runs 3]
//             [--messages-per-minute 0]
//
// The server must answer FCM's two endpoints: POST /token (an access token) and POST
// /v1/projects/bench/messages:send (`{"name": …}`): the nginx sink of tools/apns-sink does,
// as does mock-fcm (which also checks the assertion, so give it --account from its
// service-account file there). Each run sends `count` Android alerts (a fresh token and
// message id each; one frost alert's content) handed to the port in batches of
// `concurrency / 2`, two outstanding, as the notifier does. Prints messages/s and outcomes;
// the last line is the median.

func option(_ name: String, _ fallback: String? = nil) -> String {
    let arguments = CommandLine.arguments
    if let index = arguments.firstIndex(of: "--\(name)"), index + 1 < arguments.count { return arguments[index + 1] }
    guard let fallback else {
        FileHandle.standardError.write(Data("bench-fcm: --\(name) is required\n".utf8))
        exit(64)
    }
    return fallback
}

let url = option("url")
let trust = option("trust")
let count = Int(option("count", "100000"))!
let concurrency = Int(option("concurrency", "1000"))!
let runs = Int(option("runs", "3"))!
// The app's quota (FCM's default 600,000 a minute); 0, the default here: unpaced, at wire speed.
let messagesPerMinute = Int(option("messages-per-minute", "0"))!

var logger = Logger(label: "bench-fcm")
logger.logLevel = .warning
let account =
    CommandLine.arguments.contains("--account")
    ? try FCMServiceAccount(path: option("account"))
    : FCMServiceAccount(
        clientEmail: "bench@bench.iam.gserviceaccount.com", projectID: "bench", tokenURI: url + "/token",
        privateKey: try _RSA.Signing.PrivateKey(keySize: .bits2048))
var settings = FCMAppSettings(packageName: "com.example.frost", serviceAccountPath: "-", url: url, trustedCertificatesPath: trust)
settings.messagesPerMinute = messagesPerMinute
var connection = FCMConnectionSettings()
connection.maximumConcurrentSends = max(1, concurrency / 2)
let router = try FCMPushRouter(
    apps: [FCMApp(settings: settings, account: account)], settings: connection, clock: { Int64(Date().timeIntervalSince1970) }, logger: logger)

func notification(_ index: Int) -> PushNotification {
    let tail = String(index, radix: 16)
    return PushNotification(
        token: DeviceToken(trusted: "fcm:bench_" + String(repeating: "a", count: 140 - tail.count) + tail), platform: .android,
        messageID: UUID().uuidString.lowercased(), collapseID: "frost-60.20,25.00", expiration: Int64(Date().timeIntervalSince1970) + 36_000,
        content: AlertContent(
            title: "Frost tonight", body: "Minimum −3 °C near Tampere", bodyLocKey: "FROST_ALERT", bodyLocArgs: ["-3"],
            sound: "default", group: "frost", interruption: .timeSensitive,
            frost: FrostData(box: "61.50,23.75", night: "2026-11-22", level: "hard", minimumC: -3)))
}

/// One run: `count` messages in batches of `concurrency / 2`, two outstanding. The messages
/// are made before the clock starts, as bench-push's are (the notifier makes them while
/// planning, before delivery).
func run() async -> (Double, [String: Int]) {
    let messages = (0..<count).map(notification)
    let start = ContinuousClock.now
    let batchSize = max(1, concurrency / 2)
    let outcomes = await withTaskGroup(of: [String: Int].self) { group in
        var next = 0
        var outcomes: [String: Int] = [:]
        func submit() {
            let batch = Array(messages[next..<min(count, next + batchSize)])
            next += batch.count
            group.addTask {
                await router.send(batch).collect(into: [String: Int]()) { counts, _, outcome in
                    let key: String
                    if case .permanentFailure(let status, let reason) = outcome { key = "permanent-\(status)-\(reason)" } else { key = outcome.failureClass }
                    counts[key, default: 0] += 1
                }
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

// Warm-up: the access token and the connections.
_ = await router.send(notification(0))
var rates: [Double] = []
for index in 1...runs {
    let (rate, outcomes) = await run()
    rates.append(rate)
    let summary = outcomes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    print(String(format: "run %d: %.0f messages/s (%@)", index, rate, summary))
}
let median = rates.sorted()[rates.count / 2]
print(String(format: "median: %.0f messages/s over %d runs of %d (concurrency %d)", median, runs, count, concurrency))
await router.shutdown()
