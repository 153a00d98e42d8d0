import Foundation
import FrostboxCore
import FrostboxDoubles
import Logging
import MockFCM
import Testing

@testable import FrostboxApp

/// The FCM apps in the configuration, and the push capability they make: Android devices'
/// alerts go through FCM, iOS devices' through APNs (or the log-only sink).
@Suite("Configuration loader: FCM apps")
struct FCMAppsConfigurationTests {
    @Test("an FCM app from the file sends an Android device's alert to FCM; the iOS one goes to the log-only sink")
    func androidThroughFCM() async throws {
        var settings = MockFCMSettings()
        settings.host = "127.0.0.1"
        let mock = try MockFCMServer(settings)
        try await mock.withRunning { port in
            let (_, keyPath) = try mock.makeServiceAccount(port: port)
            try await ConfigLoaderTests.inDirectory { directory in
                let yaml = """
                    fcm:
                      poison_losses: 3
                      apps:
                        frost:
                          package_name: fi.example.frost
                          service_account_path: \(keyPath)
                          url: https://127.0.0.1:\(port)
                          trusted_certificates_path: \(mock.certificatePath)
                    """
                var config = try await ConfigLoaderTests.load(file: try ConfigLoaderTests.write(yaml, to: directory))
                #expect(config.fcm.apps.map(\.packageName) == ["fi.example.frost"])
                #expect(config.fcm.retry.lossesAloneBeforeGivingUp == 3)
                let logs = RecordingLogHandler.Store()
                // A loaded whole run held the token endpoint's TLS handshake past the 5 s default;
                // this test is about where the alerts go, not the connect deadline.
                config.fcm.connection.connectTimeout = .seconds(60)
                let push = try PushComponents(settings: config.apns, fcm: config.fcm, logger: logs.logger())
                let android = PushNotification(
                    token: DeviceToken(trusted: "fcm:android_1"), platform: .android, messageID: "00000000-0000-4000-8000-000000000001",
                    content: AlertContent(title: "Frost", body: "Frost tonight"))
                let ios = PushNotification(
                    token: DeviceToken(trusted: "0123456789abcdef0123456789abcdef"), platform: .ios, messageID: "00000000-0000-4000-8000-000000000002",
                    content: AlertContent(title: "Frost", body: "Frost tonight"))
                let outcomes = await push.sender.send([android, ios]).collect(into: [Int: PushOutcome]()) { $0[$1] = $2 }
                await push.shutdown()
                guard case .delivered(let name) = outcomes[0] else {
                    Issue.record("the Android alert was not delivered: \(String(describing: outcomes[0]))")
                    return
                }
                #expect(name.hasPrefix("projects/mock-project/messages/"))
                #expect(outcomes[1] == .delivered(messageID: ios.messageID))
                #expect(mock.deliveries().map(\.alertID) == [android.messageID])
                #expect(logs.all.contains { $0.message.contains("log only") && "\($0.metadata)".contains("ios") })
            }
        }
    }

    @Test("bad FCM apps stop loading naming their key")
    func badApps() async throws {
        try await ConfigLoaderTests.inDirectory { directory in
            let notJSON = try ConfigLoaderTests.write("not json", to: directory, name: "key.json")
            for (yaml, key) in [
                ("fcm:\n  apps:\n    frost:\n      service_account_path: \(notJSON)\n", "fcm.apps.frost.package_name"),
                ("fcm:\n  apps:\n    frost:\n      package_name: fi.example.frost\n", "fcm.apps.frost.service_account_path"),
                (
                    "fcm:\n  apps:\n    frost:\n      package_name: fi.example.frost\n      service_account_path: /nope.json\n",
                    "fcm.apps.frost.service_account_path"
                ),
                ("fcm:\n  apps:\n    frost:\n      package_name: fi.example.frost\n      service_account_path: \(notJSON)\n", "fcm.apps.frost"),
                ("fcm:\n  default_app: fi.example.other\n", "fcm.default_app"),
            ] {
                await #expect(
                    performing: { _ = try await ConfigLoaderTests.load(file: try ConfigLoaderTests.write(yaml, to: directory)) },
                    throws: { error in
                        (error as? ConfigurationError)?.key == key
                    })
            }
        }
    }
}
