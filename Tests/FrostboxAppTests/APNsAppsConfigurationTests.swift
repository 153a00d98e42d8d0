import Crypto
import Foundation
import FrostboxAPNs
import FrostboxDoubles
import FrostboxHTTP
import FrostboxPlaceImport
import Logging
import Testing

@testable import FrostboxApp

/// The APNs apps in the configuration: named sections, the environment, the command line and
/// the apps file, with every key file checked like the other secrets.
@Suite("Configuration loader: APNs apps")
struct APNsAppsConfigurationTests {
    @Test("keys named in the APNs apps file get the same permission check: a key others may read is named in a warning, never quoted")
    func appsFileKeyModes() async throws {
        try await ConfigLoaderTests.inDirectory { directory in
            let key = P256.Signing.PrivateKey().pemRepresentation
            for (mode, warned) in [(0o644, true), (0o600, false)] {
                let keyPath = try ConfigLoaderTests.write(key, to: directory, name: "AuthKey_ABC123DEFG.p8", mode: mode)
                let appsPath = try ConfigLoaderTests.write(
                    #"{"apps": [{"bundle_id": "fi.example.frost", "key_path": "\#(keyPath)", "key_id": "ABC123DEFG", "team_id": "DEF123GHIJ"}]}"#,
                    to: directory, name: "apps.json")
                var settings = APNsSettings()
                settings.appsFile = appsPath
                let logs = RecordingLogHandler.Store()
                let push = try PushComponents(settings: settings, logger: logs.logger())
                let warnings = logs.all.filter { $0.message.contains("secret file is readable") }
                #expect(warnings.count == (warned ? 1 : 0), "mode \(String(mode, radix: 8))")
                #expect(warnings.allSatisfy { "\($0.metadata)".contains(keyPath) })
                #expect(!logs.all.contains { "\($0.message) \($0.metadata)".contains("PRIVATE KEY") })
                await push.shutdown()
            }
        }
    }

    @Test("APNs apps come from named file sections, the environment or the command line, with key files checked")
    func apnsApps() async throws {
        try await ConfigLoaderTests.inDirectory { directory in
            let key = P256.Signing.PrivateKey().pemRepresentation
            let keyPath = try ConfigLoaderTests.write(key, to: directory, name: "AuthKey_ABC123DEFG.p8", mode: 0o640)
            let path = try ConfigLoaderTests.write(
                """
                apns:
                  max_connections: 2
                  poison_losses: 3
                  default_app: fi.example.frost
                  apps:
                    frost:
                      bundle_id: fi.example.frost
                      environment: sandbox
                      key_path: \(keyPath)
                      key_id: ABC123DEFG
                      team_id: DEF123GHIJ
                      host: 127.0.0.1:2197
                """, to: directory)
            let environment = [
                "FROSTBOX_APNS_APPS_BETA_APP_BUNDLE_ID": "fi.example.frost.beta",
                "FROSTBOX_APNS_APPS_BETA_APP_KEY_PATH": keyPath,
                "FROSTBOX_APNS_APPS_BETA_APP_KEY_ID": "ABC123DEFG",
                "FROSTBOX_APNS_APPS_BETA_APP_TEAM_ID": "DEF123GHIJ",
            ]
            let logs = RecordingLogHandler.Store()
            let config = try await ConfigLoaderTests.load(file: path, environment: environment, logs: logs)
            #expect(config.apns.apps.map(\.bundleID) == ["fi.example.frost.beta", "fi.example.frost"])
            #expect(config.apns.defaultApp == "fi.example.frost")
            #expect(config.apns.connection.maximumConnections == 2)
            #expect(config.apns.retry.lossesAloneBeforeGivingUp == 3)
            let frost = try #require(config.apns.apps.last)
            #expect(frost.environment == .sandbox)
            #expect(frost.host == "127.0.0.1:2197")
            // The group-readable key is warned about, by path only.
            #expect(logs.all.contains { $0.level == .warning && $0.metadata["path"] == "\(keyPath)" })
            #expect(!logs.all.contains { $0.description.contains("PRIVATE KEY") })
            // No environment noise: the app's variables are known keys.
            #expect(!logs.all.contains { $0.message.contains("unknown configuration variable") })

            let cases: [([String: String], String, String)] = [
                (["apns.apps.x.bundle_id": "fi.x"], "apns.apps.x", "exactly one of"),
                (["apns.apps.x.key_path": keyPath], "apns.apps.x.bundle_id", "required"),
                (["apns.apps.x.bundle_id": "fi.x", "apns.apps.x.key_path": keyPath], "apns.apps.x.key_id", "required"),
                (
                    [
                        "apns.apps.x.bundle_id": "fi.x", "apns.apps.x.key_path": directory.appendingPathComponent("nope.p8").path,
                        "apns.apps.x.key_id": "ABC123DEFG", "apns.apps.x.team_id": "DEF123GHIJ",
                    ], "apns.apps.x.key_path", "no such file"
                ),
                (
                    ["apns.apps.x.bundle_id": "fi.x", "apns.apps.x.key_path": path, "apns.apps.x.key_id": "ABC123DEFG", "apns.apps.x.team_id": "DEF123GHIJ"],
                    "apns.apps.x", "signing key"
                ),
                (["apns.apps.x.bundle_id": "bad id!"], "apns.apps.x.bundle_id", "bundle id"),
                (["apns.apps.Big.bundle_id": "fi.x"], "apns.apps.Big", "lower-case"),
                (["apns.default_app": "fi.none"], "apns.default_app", "not the bundle id"),
                (["apns.apps_file": directory.appendingPathComponent("apps.json").path], "apns.apps_file", "cannot read"),
                (["apns.poison_losses": "0"], "apns.poison_losses", "from 1 to 10"),
            ]
            for (overrides, key, fragment) in cases {
                let error = await #expect(throws: ConfigurationError.self) { try await ConfigLoaderTests.load(overrides: overrides) }
                #expect(error?.key == key, "\(overrides)")
                #expect(error?.message.contains(fragment) == true, "\(error?.description ?? "")")
                #expect(error?.description.contains("BEGIN") == false)
            }
        }
    }
}
