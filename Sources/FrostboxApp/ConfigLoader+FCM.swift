import Foundation
import FrostboxFCM
import Logging

extension ConfigKeys {
    /// Field names under `fcm.apps.<name>.`.
    static let fcmAppFields = [
        "package_name", "service_account_path", "project_id", "url", "channel_id", "trusted_certificates_path", "messages_per_minute",
    ]

    /// Reads `fcm.*` into `settings`: apps are named sections under `fcm.apps` in the file, or
    /// defined wholly in the environment (`FROSTBOX_FCM_APPS_FROST_PACKAGE_NAME` defines app
    /// `frost`) or on the command line. The service-account key is checked here (readable,
    /// not readable by others) so that a bad path stops start-up naming its key.
    static func readFCM(_ r: inout ConfigLoader.Reader, into settings: inout FCMSettings, logger: Logger) throws(ConfigurationError) {
        if let app = try r.string("fcm.default_app") { settings.defaultApp = app.isEmpty ? nil : app }
        if let timeout = try r.duration("fcm.request_timeout", in: .seconds(1) ... .seconds(300)) { settings.connection.requestTimeout = timeout }
        if let sends = try r.int("fcm.max_concurrent_sends", in: 1...10_000) { settings.connection.maximumConcurrentSends = sends }
        if let losses = try r.int("fcm.poison_losses", in: 1...10) { settings.retry.lossesAloneBeforeGivingUp = losses }
        for name in sectionNames(r, prefix: "fcm.apps.", environmentPrefix: "FCM_APPS_", fields: fcmAppFields) {
            settings.apps.append(try readFCMApp(name, &r, logger: logger))
        }
        var seen = Set<String>()
        for app in settings.apps where !seen.insert(app.packageName).inserted {
            throw r.fail("fcm.apps", "package name \(app.packageName) is configured twice")
        }
        if let app = settings.defaultApp, !settings.apps.contains(where: { $0.packageName == app }) {
            throw r.fail("fcm.default_app", "\(app) is not the package name of a configured app")
        }
    }

    /// Section names under `prefix` from every source, sorted.
    static func sectionNames(_ r: ConfigLoader.Reader, prefix: String, environmentPrefix: String, fields: [String]) -> [String] {
        var names = Set<String>()
        for key in Array(r.fileKeys.keys) + Array(r.sources.overrides.keys) where key.hasPrefix(prefix) {
            if let name = key.dropFirst(prefix.count).split(separator: ".").first { names.insert(String(name)) }
        }
        let variablePrefix = "\(ConfigLoader.environmentPrefix)_\(environmentPrefix)"
        for variable in r.sources.environment.keys where variable.hasPrefix(variablePrefix) {
            let rest = variable.dropFirst(variablePrefix.count)
            for field in fields {
                let suffix = "_" + field.uppercased()
                if rest.hasSuffix(suffix), rest.count > suffix.count {
                    names.insert(String(rest.dropLast(suffix.count)).lowercased())
                    break
                }
            }
        }
        return names.sorted()
    }

    static func readFCMApp(_ name: String, _ r: inout ConfigLoader.Reader, logger: Logger) throws(ConfigurationError) -> FCMAppSettings {
        let base = "fcm.apps.\(name)"
        guard name.allSatisfy({ ($0.isASCII && $0.isLetter && $0.isLowercase) || $0.isNumber || $0 == "_" }) else {
            throw r.fail(base, "app names are lower-case letters, digits and _ (got \"\(name)\")")
        }
        guard let packageName = try r.string("\(base).package_name"), !packageName.isEmpty else {
            throw r.required("\(base).package_name", fields: fcmAppFields, "is required for app \(name)")
        }
        guard
            packageName.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._".unicodeScalars.contains($0)) }
            )
        else {
            throw r.fail("\(base).package_name", "must be a package name (letters, digits, '.', '_')")
        }
        guard let keyPath = try r.string("\(base).service_account_path"), !keyPath.isEmpty else {
            throw r.required(
                "\(base).service_account_path", fields: fcmAppFields, "is required for app \(name) (the Firebase service-account JSON key)")
        }
        let key: Data
        do {
            key = try SecretFile.read(keyPath, logger: logger)
        } catch {
            throw r.fail("\(base).service_account_path", error.problem)
        }
        var trust: String?
        if let path = try r.string("\(base).trusted_certificates_path"), !path.isEmpty {
            guard FileManager.default.isReadableFile(atPath: path) else { throw r.fail("\(base).trusted_certificates_path", "cannot read \(path)") }
            trust = path
        }
        var settings = FCMAppSettings(
            packageName: packageName, serviceAccountPath: keyPath, projectID: try r.string("\(base).project_id").flatMap { $0.isEmpty ? nil : $0 },
            url: try r.string("\(base).url").flatMap { $0.isEmpty ? nil : $0 },
            channelID: try r.string("\(base).channel_id").flatMap { $0.isEmpty ? nil : $0 }, trustedCertificatesPath: trust)
        if let rate = try r.int("\(base).messages_per_minute", in: 0...100_000_000) { settings.messagesPerMinute = rate }
        // Parsed now, so a broken key or URL stops start-up naming its key, not the first push.
        do throws(FCMConfigurationError) {
            _ = try settings.load(read: { _ in key })
        } catch {
            throw r.fail(base, error.message)
        }
        return settings
    }
}
