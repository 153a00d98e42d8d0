import Crypto
import Foundation
import FrostboxAPNs
import FrostboxCore
import FrostboxDoubles
import FrostboxPushEngine
import Logging
import MockAPNs
import NIOPosix
import Synchronization

/// A clock tests move by hand (UTC epoch seconds).
final class ManualClock: Sendable {
    private let value: Mutex<Int64>

    init(_ start: Int64 = 1_800_000_000) { value = Mutex(start) }

    var now: Int64 { value.withLock { $0 } }

    func advance(minutes: Int64) { value.withLock { $0 += minutes * 60 } }

    var closure: @Sendable () -> Int64 { { self.now } }
}

/// Records the backoff delays it is asked for and returns at once.
final class RecordingSleeper: Sendable {
    private let delays = Mutex<[Duration]>([])

    var recorded: [Duration] { delays.withLock { $0 } }

    var closure: @Sendable (Duration) async throws -> Void {
        { delay in self.delays.withLock { $0.append(delay) } }
    }
}

/// A mock APNs on port 0 that knows one signing key, and routers pointed at it.
struct APNsHarness {
    static let bundleID = "com.example.frost"
    static let otherBundleID = "com.example.frost.widget"
    let mock: MockAPNsServer
    let key: APNsSigningKey
    let clientClock: ManualClock
    let mockClock: ManualClock
    let sleeper = RecordingSleeper()
    /// What the routers log: kept, not printed, so an expected critical line is not test-run noise.
    let logs = RecordingLogHandler.Store()

    /// Starts a mock; `configure` adjusts its configuration (faults, limits).
    static func start(_ configure: (inout MockAPNsSettings) -> Void = { _ in }) async throws -> APNsHarness {
        let key = APNsSigningKey(privateKey: P256.Signing.PrivateKey(), keyID: "KEY1234567", teamID: "TEAM123456")
        let clientClock = ManualClock()
        let mockClock = ManualClock()
        var configuration = MockAPNsSettings()
        configuration.signingKeys[key.keyID] = .init(teamID: key.teamID, publicKey: key.publicKey)
        configuration.clock = mockClock.closure
        configure(&configuration)
        let mock = try await MockAPNsServer.start(configuration, logger: Logger(label: "mock-apns-test"))
        return APNsHarness(mock: mock, key: key, clientClock: clientClock, mockClock: mockClock)
    }

    /// An app on token auth pointed at the mock.
    func app(_ bundleID: String = bundleID, key: APNsSigningKey? = nil) -> APNsAppSettings {
        APNsAppSettings(
            bundleID: bundleID, credentials: .token(key ?? self.key), environment: .sandbox,
            customEndpoint: APNsEndpoint(host: "127.0.0.1", port: mock.port), trustedCertificatesPath: mock.certificatePath)
    }

    /// Connection settings for tests: the defaults, but a deadline long enough for a debug
    /// build on a machine shared with other builds (tests of the deadline set their own).
    static var settings: APNsConnectionSettings {
        var settings = APNsConnectionSettings()
        settings.requestTimeout = .seconds(90)
        // A whole test run can hold a TLS handshake past the 10 s default; these tests are not
        // about the connect deadline (its own test sets one).
        settings.connectTimeout = .seconds(60)
        return settings
    }

    /// The event loops the test routers' connections run on: their own, not the process-wide
    /// singleton the in-process HTTP servers of other suites accept on. A gateway spreads over
    /// every loop of its group, and thousands of pushes on the singleton's two loops kept a
    /// loaded whole run's servers from accepting within their clients' 5 s connect timeout.
    static let loops = MultiThreadedEventLoopGroup(numberOfThreads: 2)

    /// A router over `apps` (default: the one token-auth app), with the recording sleeper.
    func router(
        _ apps: [APNsAppSettings]? = nil, defaultBundleID: String? = nil, retry: PushRetryPolicy = .init(),
        settings: APNsConnectionSettings = APNsHarness.settings
    ) throws -> APNsPushRouter {
        try APNsPushRouter(
            apps: apps ?? [app()], defaultBundleID: defaultBundleID, settings: settings, retryPolicy: retry,
            clock: clientClock.closure, sleep: sleeper.closure, random: { 0.5 }, eventLoopGroup: Self.loops,
            logger: logs.logger(label: "apns-test", level: .info))
    }

    func stop(_ routers: APNsPushRouter...) async throws {
        for router in routers { await router.shutdown() }
        try await mock.stop()
    }
}

/// A 64-hex-digit token starting with `prefix` (fault prefixes) and ending with `index`.
func token(_ prefix: String = "a1", _ index: Int = 0) -> DeviceToken {
    let tail = String(format: "%08x", index)
    let middle = String(repeating: "0", count: 64 - prefix.count - tail.count)
    return DeviceToken(trusted: prefix + middle + tail)
}

/// A frost alert to `device`, with a fresh apns-id.
func alert(
    to device: DeviceToken, topic: String? = APNsHarness.bundleID, collapseID: String? = nil, body: String = "Frost tonight: −3 °C",
    expiration: Int64? = nil
) -> PushNotification {
    PushNotification(
        token: device, platform: .ios, app: topic, messageID: UUID().uuidString.lowercased(), collapseID: collapseID, expiration: expiration,
        content: AlertContent(
            title: "Frost", body: body, bodyLocKey: "FROST_ALERT", bodyLocArgs: ["-3"], sound: "default", group: "frost",
            interruption: .timeSensitive, frost: FrostData(box: "61.50,23.75", night: "2026-11-22", level: "hard", minimumC: -3)))
}
