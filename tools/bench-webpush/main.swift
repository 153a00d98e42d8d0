import Crypto
import Foundation
import FrostboxCore
import FrostboxPushEngine
import FrostboxWebPush
import Logging
import NIOCore
import NIOPosix

// bench-webpush: messages per second through the Frostbox Web Push adapter (release build).
//
//   bench-webpush --url https://127.0.0.1:PORT --trust CERT.pem [--count 100000] [--concurrency 1000] [--runs 3]
//                 [--sample DIR]
//   bench-webpush --encrypt-only [--keygen] [--count 20000] [--runs 3]
//
// The server must answer POST /push/<id> with 2xx: the nginx sink of tools/apns-sink answers
// 201 with a Location, as a push service does. `count` browsers are made first (each a P-256
// key and a 16-byte auth secret, an endpoint https://127.0.0.1:PORT/push/<140 characters>), kept
// in an in-memory directory the router reads as it reads the devices' store; the VAPID key is
// written to a temporary file (0600) and read back as the app reads its key. Each run sends
// `count` frost alerts (a fresh alert id each) through `WebPushRouter` — the path
// WebPushComponents wires (the sink a private push service, its certificate trusted) — in
// batches of `concurrency / 2`, two outstanding, as the notifier hands them over. Every
// message must come back delivered, or the tool exits 1. Prints messages/s; the last line is
// the median. The alerts are made before the clock starts; encryption is inside it (the
// router encrypts as it sends).
//
// --sample DIR writes one request exactly as the adapter makes it (path, header fields, body,
// and the plaintext it encrypted) for h2load and the Python peer: DIR/path, DIR/headers
// (`name: value` lines), DIR/body.bin, DIR/plaintext.json.
// --encrypt-only times, on one thread, what preparing a message costs besides the transport:
// the payload's JSON, the subscriber's keys parsed, and RFC 8291 encryption (ECDH and all);
// with --keygen, what one ephemeral P-256 key costs made three ways.

func option(_ name: String, _ fallback: String? = nil) -> String {
    let arguments = CommandLine.arguments
    if let index = arguments.firstIndex(of: "--\(name)"), index + 1 < arguments.count { return arguments[index + 1] }
    guard let fallback else { fail("--\(name) is required", code: 64) }
    return fallback
}

func fail(_ message: String, code: Int32 = 1) -> Never {
    FileHandle.standardError.write(Data("bench-webpush: \(message)\n".utf8))
    exit(code)
}

let count = Int(option("count", "100000"))!
let concurrency = Int(option("concurrency", "1000"))!
let runs = Int(option("runs", "3"))!
let encryptOnly = CommandLine.arguments.contains("--encrypt-only")
let url = encryptOnly ? "https://127.0.0.1:1" : option("url")
let trust = encryptOnly ? nil : option("trust")
guard let sinkEndpoint = try? WebPushEndpoint(url + "/") else { fail("--url must be https://host:port") }
let origin = sinkEndpoint.origin

var logger = Logger(label: "bench-webpush")
logger.logLevel = .warning

/// One browser's subscription: its keys as the browser sends them (base64url), the endpoint
/// naming it (what a push service puts in the path: 140 characters, as FCM's).
func browser(_ index: Int) -> (DeviceToken, WebPushSubscription) {
    let key = randomKey()
    let auth = (0..<16).map { _ in UInt8.random(in: 0...255) }
    let tail = String(index, radix: 16)
    let endpoint = url + "/push/" + String(repeating: "b", count: 140 - tail.count) + tail
    var id = [UInt8](repeating: 0, count: 16)
    withUnsafeBytes(of: UInt64(index).bigEndian) { id.replaceSubrange(8..<16, with: $0) }
    return (
        DeviceToken.webID(random: id),
        WebPushSubscription(trustedEndpoint: endpoint, p256dh: Base64URL.encode(key.publicKey.x963Representation), auth: Base64URL.encode(auth))
    )
}

/// A P-256 key from a random scalar: what a browser's key is, made without swift-crypto's
/// FIPS self-test per key (see --keygen), so that 200,000 browsers take seconds, not minutes.
func randomKey() -> P256.KeyAgreement.PrivateKey {
    var generator = SystemRandomNumberGenerator()
    while true {
        let scalar = (0..<4).flatMap { _ in withUnsafeBytes(of: generator.next() as UInt64) { Array($0) } }
        if let key = try? P256.KeyAgreement.PrivateKey(rawRepresentation: scalar) { return key }
    }
}

/// The devices' store, as far as the router reads it.
struct Directory: WebPushDirectory {
    let subscriptions: [DeviceToken: WebPushSubscription]
    func webPushSubscriptions(of tokens: [DeviceToken]) async throws -> [DeviceToken: WebPushSubscription] {
        var found: [DeviceToken: WebPushSubscription] = [:]
        found.reserveCapacity(tokens.count)
        for token in tokens { found[token] = subscriptions[token] }
        return found
    }
}

/// One frost alert to `token` (the content bench-fcm sends), worth ten hours.
func alert(_ token: DeviceToken) -> PushNotification {
    PushNotification(
        token: token, platform: .web, messageID: UUID().uuidString.lowercased(), collapseID: "frost-60.20,25.00",
        expiration: Int64(Date().timeIntervalSince1970) + 36_000,
        content: AlertContent(
            title: "Frost tonight", body: "Minimum −3 °C near Tampere", bodyLocKey: "FROST_ALERT", bodyLocArgs: ["-3"],
            sound: "default", group: "frost", interruption: .timeSensitive,
            frost: FrostData(box: "61.50,23.75", night: "2026-11-22", level: "hard", minimumC: -3)))
}

func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }

let made = ContinuousClock.now
let browsers = (0..<count).map(browser)
print(String(format: "%d browsers made in %.1f s", count, seconds(ContinuousClock.now - made)))

if CommandLine.arguments.contains("--keygen") {
    // The ephemeral sender key three ways (one thread): swift-crypto's default generation
    // (BoringSSL's, a FIPS pairwise check, retried until the key is compact-representable),
    // the same without the compact retry, and a random scalar with its public point computed.
    func time(_ name: String, _ make: () -> P256.KeyAgreement.PrivateKey) {
        let start = ContinuousClock.now
        var bytes = 0
        for _ in 0..<count { bytes += make().publicKey.x963Representation.count }
        print(String(format: "%@: %.1f µs a key", name, seconds(ContinuousClock.now - start) / Double(count) * 1e6))
    }
    for _ in 1...runs {
        time("PrivateKey()") { P256.KeyAgreement.PrivateKey() }
        time("PrivateKey(compactRepresentable: false)") { P256.KeyAgreement.PrivateKey(compactRepresentable: false) }
        time("PrivateKey(rawRepresentation: random)", randomKey)
    }
    exit(0)
}

if encryptOnly {
    // What `WebPushPlatform.prepare` spends per message besides the gateway and header fields.
    var render: [Double] = []
    var keys: [Double] = []
    var encrypt: [Double] = []
    let senderKeys = WebPushSenderKeys()
    for index in 1...runs {
        let messages = browsers.map { alert($0.0) }
        var start = ContinuousClock.now
        let plaintexts = messages.map(WebPushPayload.render)
        render.append(seconds(ContinuousClock.now - start) / Double(count) * 1e6)
        start = ContinuousClock.now
        let parsed = browsers.map { try! WebPushSubscriberKeys(p256dh: $0.1.p256dh, auth: $0.1.auth) }
        keys.append(seconds(ContinuousClock.now - start) / Double(count) * 1e6)
        start = ContinuousClock.now
        var bytes = 0
        for (plaintext, key) in zip(plaintexts, parsed) { bytes += try! WebPushEncryption.encrypt(plaintext, for: key, senderKeys: senderKeys).count }
        encrypt.append(seconds(ContinuousClock.now - start) / Double(count) * 1e6)
        print(
            String(
                format: "run %d: payload JSON %.1f µs, keys parsed %.1f µs, RFC 8291 encryption %.1f µs a message (%d-byte bodies)", index,
                render.last!, keys.last!, encrypt.last!, bytes / count))
    }
    print(
        String(
            format: "median: payload JSON %.1f µs, keys parsed %.1f µs, encryption %.1f µs; crypto (keys + encryption) %.1f µs a message, one thread",
            median(render), median(keys), median(encrypt), median(keys) + median(encrypt)))
    exit(0)
}

// The VAPID key, made and read back as an operator's would be (`frostbox webpush-key`, then the app).
let keyDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("bench-webpush-\(UUID().uuidString)").path
try FileManager.default.createDirectory(atPath: keyDirectory, withIntermediateDirectories: false, attributes: [.posixPermissions: 0o700])
try VAPIDKey.generate().write(toNewFile: keyDirectory + "/vapid.pem")
let key = try VAPIDKey(contentsOfFile: keyDirectory + "/vapid.pem")
try? FileManager.default.removeItem(atPath: keyDirectory)

let app = WebPushApp(name: "bench", key: key, subject: try VAPIDSubject("mailto:bench@example.org"))
// As WebPushComponents wires it: the sink a private push service, its certificate trusted.
let services = try WebPushServices(allowed: [], privateOrigins: [origin])
let serviceGuard = WebPushServiceGuard(services: services, logger: logger)
let connection = WebPushConnectionSettings(trustedCertificatesPath: trust)
let router = try WebPushRouter(
    apps: [app], serviceGuard: serviceGuard, directory: Directory(subscriptions: Dictionary(uniqueKeysWithValues: browsers)),
    settings: connection, clock: { Int64(Date().timeIntervalSince1970) }, logger: logger)

if CommandLine.arguments.contains("--sample") {
    // One request as the adapter renders it, through the platform the router's client uses.
    let directory = option("sample")
    let gateways = WebPushGateways(
        serviceGuard: serviceGuard, settings: connection, maximumResends: 0, loops: [MultiThreadedEventLoopGroup.singleton.next()],
        random: { Double.random(in: 0..<1) }, logger: logger)
    let platform = WebPushPlatform(app: app, gateways: gateways, clock: { Int64(Date().timeIntervalSince1970) })
    var notification = alert(browsers[0].0)
    notification.webPush = browsers[0].1
    guard case .success(let request) = platform.prepare(notification) else { fail("the sample request was refused") }
    let headers = request.fields.map { "\($0.name): \($0.value)\n" }.joined()
    try request.path.write(toFile: directory + "/path", atomically: true, encoding: .utf8)
    try headers.write(toFile: directory + "/headers", atomically: true, encoding: .utf8)
    try Data(request.body.readableBytesView).write(to: URL(fileURLWithPath: directory + "/body.bin"))
    try Data(WebPushPayload.render(notification)).write(to: URL(fileURLWithPath: directory + "/plaintext.json"))
    // The authorization names the header only: the token itself stays in the file.
    print("sample request: \(request.path.count)-character path, \(request.fields.count) header fields, \(request.body.readableBytes)-byte body")
    await gateways.shutdown()
}

/// One run: `count` alerts in batches of `concurrency / 2`, two outstanding, as bench-fcm sends.
func run() async -> (Double, [String: Int]) {
    let messages = browsers.map { alert($0.0) }
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
                    switch outcome {
                    case .delivered: key = "delivered"
                    case .permanentFailure(let status, let reason): key = "permanent-\(status)-\(reason.prefix(60))"
                    case .temporaryFailure(let reason), .authFailure(let reason), .invalidToken(let reason, _):
                        key = "\(outcome.failureClass)-\(reason.prefix(60))"
                    }
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
    return (Double(count) / seconds(ContinuousClock.now - start), outcomes)
}

// Warm-up: the VAPID token and the connections.
let warm = await router.send([alert(browsers[0].0)]).collect(into: [PushOutcome]()) { $0.append($2) }
guard case .delivered = warm.first else { fail("the warm-up push was not delivered: \(warm)") }
var rates: [Double] = []
var failed = false
for index in 1...runs {
    let (rate, outcomes) = await run()
    rates.append(rate)
    let summary = outcomes.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
    print(String(format: "run %d: %.0f messages/s (%@)", index, rate, summary))
    if outcomes["delivered", default: 0] != count { failed = true }
}
print(String(format: "median: %.0f messages/s over %d runs of %d (concurrency %d)", median(rates), runs, count, concurrency))
await router.shutdown()
if failed { fail("not every message was delivered (see the runs above)") }
