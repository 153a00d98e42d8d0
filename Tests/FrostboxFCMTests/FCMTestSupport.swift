import Foundation
import FrostboxCore
import FrostboxDoubles
import FrostboxFCM
import FrostboxPushEngine
import Logging
import MockFCM
import Synchronization

/// A clock tests move by hand (UTC epoch seconds).
final class ManualClock: Sendable {
    private let value: Mutex<Int64>

    init(_ start: Int64 = 1_800_000_000) { value = Mutex(start) }

    var now: Int64 { value.withLock { $0 } }

    func advance(seconds: Int64) { value.withLock { $0 += seconds } }

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

/// The one place tests make a device token (the constructor changes with the core's redesign).
func fcmToken(_ value: String) -> DeviceToken { DeviceToken(trusted: value) }

/// An Android alert as the notifier would hand it over.
func alert(
    token: String, messageID: String = "7b1d6a52-3c1e-4c39-9a57-5d0f1c2e8a41", app: String? = nil, expiration: Int64? = 1_800_003_600
) -> PushNotification {
    PushNotification(
        token: fcmToken(token), platform: .android, app: app, messageID: messageID, collapseID: "frost-2026-11-20-box", priority: .immediate,
        expiration: expiration,
        content: AlertContent(
            title: "Hard frost warning", body: "Hard frost tonight at Home: low −4 °C around 05:00", titleLocKey: "alert.hard.title",
            bodyLocKey: "alert.hard.body", bodyLocArgs: ["Home", "-4", "05:00"], sound: "default", group: "box-60.20-25.00",
            interruption: .timeSensitive, frost: FrostData(box: "60.20,25.00", night: "2026-11-20", level: "hard", minimumC: -4.5)))
}

/// Collects a batch's outcomes by index.
func collect(_ outcomes: PushOutcomes) async -> [Int: PushOutcome] {
    var byIndex: [Int: PushOutcome] = [:]
    for await (index, outcome) in outcomes {
        byIndex[index] = outcome
    }
    return byIndex
}

/// A mock FCM on port 0 with one test service account, and routers pointed at it.
struct FCMHarness: Sendable {
    static let packageName = "com.example.frost"
    let mock: MockFCMServer
    let port: Int
    let serviceAccountPath: String
    /// The clock of both the client and the mock (so assertion times agree).
    let clock: ManualClock
    let sleeper = RecordingSleeper()
    let pacerTime = SteppedWallClock()

    /// Runs `body` with a mock (configured by `configure`) serving on a free loopback port.
    static func with<T: Sendable>(
        _ configure: (inout MockFCMSettings) -> Void = { _ in }, _ body: @Sendable (FCMHarness) async throws -> T
    ) async throws -> T {
        var configuration = MockFCMSettings()
        let clock = ManualClock()
        configuration.clock = clock.closure
        configure(&configuration)
        var logger = Logger(label: "mock-fcm-test")
        logger.logLevel = .warning
        let mock = try MockFCMServer(configuration, logger: logger)
        return try await mock.withRunning { port in
            let (_, path) = try mock.makeServiceAccount(port: port)
            return try await body(FCMHarness(mock: mock, port: port, serviceAccountPath: path, clock: clock))
        }
    }

    /// An app pointed at the mock.
    func app(_ packageName: String = packageName, channelID: String? = "frost_alerts") throws -> FCMApp {
        try FCMAppSettings(
            packageName: packageName, serviceAccountPath: serviceAccountPath, url: "https://127.0.0.1:\(port)", channelID: channelID,
            trustedCertificatesPath: mock.certificatePath
        ).load()
    }

    /// Connection settings for tests: a deadline long enough for a debug build on a shared
    /// machine (the deadline test sets its own).
    static var settings: FCMConnectionSettings {
        var settings = FCMConnectionSettings()
        settings.requestTimeout = .seconds(60)
        settings.tokenRequestTimeout = .seconds(60)
        settings.connectTimeout = .seconds(60)
        return settings
    }

    /// A router over the test app, with the recording sleeper and the manual client clock.
    func router(apps: [FCMApp]? = nil, retry: PushRetryPolicy = .fcm, settings: FCMConnectionSettings = FCMHarness.settings) throws -> FCMPushRouter {
        var logger = Logger(label: "fcm-test")
        logger.logLevel = .error
        return try FCMPushRouter(
            apps: apps ?? [app()], settings: settings, retryPolicy: retry, clock: clock.closure, sleep: sleeper.closure, random: { 0.5 },
            wallClock: pacerTime.clock, pacerSleep: pacerTime.sleep, logger: logger)
    }
}
