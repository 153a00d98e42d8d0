import Foundation
import Testing

@testable import FrostboxApp

/// A misspelt required key is reported as the unknown key it is, with its "did you mean";
/// a required key that is simply missing says where it was looked for; a duration outside
/// its range says so, not that it is no duration.
@Suite("Configuration: typos in required keys, duration ranges")
struct ConfigTypoTests {
    @Test("a misspelt required FCM key in the file is named unknown, with the key it should be")
    func misspeltFileKey() async throws {
        try await ConfigLoaderTests.inDirectory { directory in
            let file = try ConfigLoaderTests.write(
                """
                fcm:
                  apps:
                    frost:
                      package_name: fi.example.frost
                      service_acount_path: /etc/frostbox/fcm.json
                """, to: directory)
            let error = await #expect(throws: ConfigurationError.self) { try await ConfigLoaderTests.load(file: file) }
            #expect(error?.key == "fcm.apps.frost.service_acount_path")
            #expect(error?.source == "file \(file)")
            #expect(error?.message.hasPrefix("unknown key (did you mean fcm.apps.frost.service_account_path?)") == true, "\(String(describing: error))")
        }
    }

    @Test("a misspelt required APNs key on the command line is named unknown too")
    func misspeltOverride() async throws {
        let error = await #expect(throws: ConfigurationError.self) {
            try await ConfigLoaderTests.load(overrides: ["apns.apps.frost.bundel_id": "fi.example.frost", "apns.apps.frost.key_path": "/x.p8"])
        }
        #expect(error?.key == "apns.apps.frost.bundel_id")
        #expect(error?.source == "command line")
        #expect(error?.message.hasPrefix("unknown key (did you mean apns.apps.frost.bundle_id?)") == true, "\(String(describing: error))")
    }

    @Test("a misspelt environment variable of a required key is named")
    func misspeltVariable() async throws {
        let error = await #expect(throws: ConfigurationError.self) {
            try await ConfigLoaderTests.load(environment: [
                "FROSTBOX_FCM_APPS_FROST_PACKAGE_NAME": "fi.example.frost", "FROSTBOX_FCM_APPS_FROST_SERVICE_ACOUNT_PATH": "/x.json",
            ])
        }
        #expect(error?.source == "environment FROSTBOX_FCM_APPS_FROST_SERVICE_ACOUNT_PATH")
        #expect(
            error?.message.hasPrefix("unknown variable (did you mean FROSTBOX_FCM_APPS_FROST_SERVICE_ACCOUNT_PATH?)") == true, "\(String(describing: error))")
    }

    @Test("a required key that is simply missing says where it was looked for, not 'default'")
    func missingSaysWhere() async throws {
        let error = await #expect(throws: ConfigurationError.self) {
            try await ConfigLoaderTests.load(overrides: ["fcm.apps.frost.package_name": "fi.example.frost"])
        }
        #expect(error?.key == "fcm.apps.frost.service_account_path")
        #expect(error?.source.contains("looked for in") == true, "\(String(describing: error))")
        #expect(error?.source.contains("environment FROSTBOX_FCM_APPS_FROST_SERVICE_ACCOUNT_PATH") == true)
        #expect(error?.description.contains("(default)") == false)
    }

    @Test("notifier.interval: 30s is a duration, below the minimum: the message says the range, not 'must be a duration'")
    func durationRange() async throws {
        let error = await #expect(throws: ConfigurationError.self) { try await ConfigLoaderTests.load(overrides: ["notifier.interval": "30s"]) }
        #expect(error?.key == "notifier.interval")
        #expect(error?.message == #"must be from 1m to 7d (got "30s")"#)
        let garbage = await #expect(throws: ConfigurationError.self) { try await ConfigLoaderTests.load(overrides: ["notifier.interval": "soon"]) }
        #expect(garbage?.message.hasPrefix("must be a duration such as") == true)
        #expect(try await ConfigLoaderTests.load(overrides: ["notifier.interval": "90s"]).notifier.interval == .seconds(90))
    }
}
