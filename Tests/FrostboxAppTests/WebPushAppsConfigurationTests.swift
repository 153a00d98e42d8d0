import Foundation
import FrostboxCore
import FrostboxDoubles
import FrostboxWebPush
import Logging
import MockWebPush
import Testing

@testable import FrostboxApp

/// The Web Push apps in the configuration (issue #46), and the push capability they make:
/// browsers' alerts go through their push service, the others' where they went before.
@Suite("Configuration loader: Web Push apps")
struct WebPushAppsConfigurationTests {
    @Test("a Web Push app from the file sends a registered browser's alert to its push service, decrypted there to the payload")
    func browserThroughWebPush() async throws {
        let server = try MockWebPushServer()
        try await server.withRunning { port in
            try await ConfigLoaderTests.inDirectory { directory in
                let keyPath = directory.appendingPathComponent("vapid.pem").path
                let printed = try WebPushCommands.makeKeys(out: keyPath)
                let yaml = """
                    webpush:
                      push_services: []
                      private_push_services: ["https://127.0.0.1:\(port)"]
                      trusted_certificates_path: \(server.certificatePath)
                      apps:
                        garden:
                          vapid_key_path: \(keyPath)
                          subject: mailto:frost@example.org
                    """
                let config = try await ConfigLoaderTests.load(file: try ConfigLoaderTests.write(yaml, to: directory))
                #expect(config.webPush.apps.map(\.name) == ["garden"])
                let key = try #require(config.webPush.apps.first?.key)
                #expect(printed.contains { $0.contains(key.publicKeyBase64URL) }, "the command prints the public key it wrote")

                let store = InMemorySubscriptionStore()
                let logs = RecordingLogHandler.Store()
                let web = try WebPushComponents(settings: config.webPush, directory: store, logger: logs.logger())
                let push = try PushComponents(settings: config.apns, fcm: config.fcm, web: web, logger: logs.logger())
                #expect(push.reach.reach(.web) == .apps(["garden"], defaultApp: "garden") && push.reach.reach(.ios) == .notConfigured)

                let made = server.makeSubscription(port: port)
                let subscription = try WebPushSubscription(endpoint: made.endpoint, p256dh: made.p256dh, auth: made.auth)
                try await web.serviceGuard.admit(subscription)
                var registration = DeviceRegistration(token: DeviceToken.webID(random: Array(repeating: 3, count: 16)), platform: .web)
                registration.webPush = subscription
                let id = try await store.registerWebPush(registration, newID: registration.token, at: 1).token
                let alert = PushNotification(
                    token: id, platform: .web, messageID: "00000000-0000-4000-8000-000000000001", expiration: Int64(Date().timeIntervalSince1970) + 600,
                    content: AlertContent(title: "Frost", body: "Frost tonight"))
                let outcomes = await push.sender.send([alert]).collect(into: [Int: PushOutcome]()) { $0[$1] = $2 }
                #expect(push.connectionsByPlatform["web"] == 1)
                await push.shutdown()
                #expect(outcomes[0] == .delivered(messageID: alert.messageID))
                #expect(server.deliveries.map(\.plaintext) == [WebPushPayload.render(alert)])
            }
        }
    }

    @Test("push-test --platform web sends one visible push to the browser whose subscription it is given; a bad subscription or app is refused unsent")
    func pushTest() async throws {
        let server = try MockWebPushServer()
        try await server.withRunning { port in
            try await ConfigLoaderTests.inDirectory { directory in
                let keyPath = directory.appendingPathComponent("vapid.pem").path
                _ = try WebPushCommands.makeKeys(out: keyPath)
                let config = try await ConfigLoaderTests.load(overrides: [
                    "webpush.private_push_services": "https://127.0.0.1:\(port)", "webpush.trusted_certificates_path": server.certificatePath,
                    "webpush.apps.garden.vapid_key_path": keyPath, "webpush.apps.garden.subject": "mailto:frost@example.org",
                ])
                let made = server.makeSubscription(port: port)
                let json = #"{"endpoint": "\#(made.endpoint)", "expirationTime": null, "keys": {"p256dh": "\#(made.p256dh)", "auth": "\#(made.auth)"}}"#
                let logger = Logger(label: "test")
                let report = try await PushCommands.webPushTestReport(config: config, app: "garden", subscription: json, logger: logger)
                #expect(report.delivered, "\(report.line)")
                let shown = try #require(server.deliveries.first).plaintext
                #expect(String(decoding: shown, as: UTF8.self).contains(#""title":"Frostbox""#))
                for (app, subscription) in [
                    ("garden", "{}"),
                    ("garden", #"{"endpoint": "https://push.evil.example/x", "keys": {"p256dh": "\#(made.p256dh)", "auth": "\#(made.auth)"}}"#),
                    ("other", json),
                ] {
                    await #expect(throws: PushCommands.Failure.self, "\(app) \(subscription)") {
                        try await PushCommands.webPushTest(config: config, app: app, subscription: subscription, logger: logger)
                    }
                }
                #expect(server.deliveries.count == 1, "nothing else was sent")
            }
        }
    }

    @Test(
        "bad Web Push settings stop loading naming their key",
        arguments: [
            ("webpush.push_services", "http://push.example.org"), ("webpush.private_push_services", "https://*.example.org"),
            ("webpush.apps.garden.subject", "mailto:me@localhost"), ("webpush.apps.garden.vapid_key_path", "/nonexistent/vapid.pem"),
        ])
    func refused(key: String, value: String) async throws {
        try await ConfigLoaderTests.inDirectory { directory in
            let keyPath = directory.appendingPathComponent("vapid.pem").path
            _ = try WebPushCommands.makeKeys(out: keyPath)
            var overrides = ["webpush.apps.garden.vapid_key_path": keyPath, "webpush.apps.garden.subject": "mailto:frost@example.org"]
            overrides[key] = value
            do throws(ConfigurationError) {
                _ = try await ConfigLoaderTests.load(overrides: overrides)
                Issue.record("\(key) = \(value) was taken")
            } catch {
                #expect(error.key == key, "\(error)")
            }
        }
    }

    @Test("a VAPID key file group or others may read stops loading with the chmod hint")
    func exposedKey() async throws {
        try await ConfigLoaderTests.inDirectory { directory in
            let keyPath = directory.appendingPathComponent("vapid.pem").path
            _ = try WebPushCommands.makeKeys(out: keyPath)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: keyPath)
            do throws(ConfigurationError) {
                _ = try await ConfigLoaderTests.load(overrides: [
                    "webpush.apps.garden.vapid_key_path": keyPath, "webpush.apps.garden.subject": "mailto:frost@example.org",
                ])
                Issue.record("a 0644 key was taken")
            } catch {
                #expect(error.key == "webpush.apps.garden.vapid_key_path" && error.message.contains("chmod 600"), "\(error)")
            }
        }
    }
}
