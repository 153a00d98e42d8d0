import Foundation
import FrostboxCore
import FrostboxDoubles
import Logging
import Testing

@testable import FrostboxApp

/// `frostbox serve --demo`: the quick start's offline way to see an alert.
@Suite("Demo mode")
struct DemoModeTests {
    @Test("in demo mode a new subscription is alerted in the log within seconds, with no network and no APNs")
    func subscriptionIsAlertedInTheLog() async throws {
        let logs = RecordingLogHandler.Store()
        let token = "0123456789abcdef0123456789abcdef"
        try await GracefulShutdownTests.withServer(configure: { $0 = $0.demoMode() }, logger: logs.logger(level: .info)) { port, _, group in
            // A loaded whole run (two cores, hundreds of tests) can hold a first answer well past 30 s.
            let registered = try await LoopbackConnection.request(port: port, "PUT", "/v1/devices/\(token)", readTimeout: 120)
            #expect(registered.hasPrefix("HTTP/1.1 201"), "\(registered)")
            let subscribed = try await LoopbackConnection.request(
                port: port, "POST", "/v1/devices/\(token)/subscriptions", body: #"{"latitude": 60.19, "longitude": 25.01, "name": "Home"}"#,
                readTimeout: 120)
            #expect(subscribed.hasPrefix("HTTP/1.1 201"), "\(subscribed)")
            // The first run is 2 s after start and then every 10 s: one of the next two must alert.
            let deadline = ContinuousClock.now + .seconds(90)
            var push: RecordingLogHandler.Entry?
            while push == nil, ContinuousClock.now < deadline {
                push = logs.all.first { $0.message.hasPrefix("push (log only") }
                if push == nil { try await Task.sleep(for: .milliseconds(100)) }
            }
            await group.triggerGracefulShutdown()
            let entry = try #require(push, "no push was logged within 90 s")
            #expect(entry.description.contains("Home"))
            #expect(entry.description.contains("°C"))
            #expect(!entry.description.contains(token), "the log carries the whole device token")
        }
        #expect(logs.all.contains { $0.message.hasPrefix("demo mode") })
    }

    @Test("demo mode sends through the log-only sink even when an APNs app is configured")
    func demoNeverUsesAPNs() throws {
        var config = FrostboxSettings()
        config.apns.apps = [APNsAppEntry(bundleID: "com.example.frost")]
        let demo = config.demoMode()
        #expect(demo.demo)
        #expect(demo.notifier.interval == .seconds(10))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("frostbox-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        var withDatabase = demo
        withDatabase.databasePath = directory.appendingPathComponent("demo.sqlite").path
        let components = try FrostboxApplication.Components(
            config: withDatabase, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        #expect(components.pushComponents.apps.isEmpty)
    }
}
