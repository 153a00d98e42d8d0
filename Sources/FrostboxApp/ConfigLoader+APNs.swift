import Foundation
import FrostboxAPNs
import FrostboxCore
import Logging

extension ConfigKeys {
    /// Field names under `apns.apps.<name>.`, as in the apps file (`APNsAppEntry`).
    static let appFields = [
        "bundle_id", "environment", "host", "trusted_certificates_path", "key_path", "key_id", "team_id", "certificate_path",
        "certificate_key_path", "p12_path", "p12_passphrase_file",
    ]

    /// Reads `apns.*` into `settings`. Apps are named sections under `apns.apps` in the file,
    /// or defined wholly in the environment (`FROSTBOX_APNS_APPS_FROST_BUNDLE_ID` defines app
    /// `frost`) or on the command line (`--set apns.apps.frost.bundle_id=…`); `apns.apps_file`
    /// names a JSON apps file as well. Key files are checked here (readable, not readable by
    /// others) so that a bad path stops start-up naming its key.
    static func readAPNs(_ r: inout ConfigLoader.Reader, into settings: inout APNsSettings, logger: Logger) throws(ConfigurationError) {
        if let file = try r.string("apns.apps_file") {
            if file.isEmpty {
                settings.appsFile = nil
            } else {
                guard FileManager.default.isReadableFile(atPath: file) else { throw r.fail("apns.apps_file", "cannot read \(file)") }
                settings.appsFile = file
            }
        }
        if let app = try r.string("apns.default_app") { settings.defaultApp = app.isEmpty ? nil : app }
        if let connections = try r.int("apns.max_connections", in: 1...64) { settings.connection.maximumConnections = connections }
        if let streams = try r.int("apns.streams_per_connection", in: 1...1_000) { settings.connection.streamsPerConnection = streams }
        if let timeout = try r.duration("apns.request_timeout", in: .seconds(1) ... .seconds(300)) { settings.connection.requestTimeout = timeout }
        if let losses = try r.int("apns.poison_losses", in: 1...10) { settings.retry.lossesAloneBeforeGivingUp = losses }
        for name in appNames(r) {
            settings.apps.append(try readApp(name, &r, logger: logger))
        }
        var seen = Set<String>()
        for app in settings.apps where !seen.insert(app.bundleID).inserted {
            throw r.fail("apns.apps", "bundle id \(app.bundleID) is configured twice")
        }
        if let app = settings.defaultApp, settings.appsFile == nil, !settings.apps.contains(where: { $0.bundleID == app }) {
            throw r.fail("apns.default_app", "\(app) is not the bundle id of a configured app")
        }
    }

    /// App names from every source, sorted.
    static func appNames(_ r: ConfigLoader.Reader) -> [String] {
        sectionNames(r, prefix: "apns.apps.", environmentPrefix: "APNS_APPS_", fields: appFields)
    }

    static func readApp(_ name: String, _ r: inout ConfigLoader.Reader, logger: Logger) throws(ConfigurationError) -> APNsAppEntry {
        let base = "apns.apps.\(name)"
        guard name.allSatisfy({ ($0.isASCII && $0.isLetter && $0.isLowercase) || $0.isNumber || $0 == "_" }) else {
            throw r.fail(base, "app names are lower-case letters, digits and _ (got \"\(name)\")")
        }
        guard let bundleID = try r.string("\(base).bundle_id"), !bundleID.isEmpty else {
            throw r.required("\(base).bundle_id", fields: appFields, "is required for app \(name)")
        }
        guard
            bundleID.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || ".-_".unicodeScalars.contains($0)) })
        else {
            throw r.fail("\(base).bundle_id", "must be a bundle id (letters, digits, '.', '-', '_')")
        }
        var app = APNsAppEntry(bundleID: bundleID)
        if let environment = try r.choice("\(base).environment", PushEnvironment.allCases.map(\.rawValue)) {
            app.environment = PushEnvironment(rawValue: environment) ?? .production
        }
        func path(_ field: String, secret: Bool) throws(ConfigurationError) -> String? {
            guard let value = try r.string("\(base).\(field)"), !value.isEmpty else { return nil }
            if secret {
                do {
                    _ = try SecretFile.read(value, logger: logger)
                } catch {
                    throw r.fail("\(base).\(field)", error.problem)
                }
            } else if !FileManager.default.isReadableFile(atPath: value) {
                throw r.fail("\(base).\(field)", "cannot read \(value)")
            }
            return value
        }
        app.keyPath = try path("key_path", secret: true)
        app.keyID = try r.string("\(base).key_id").flatMap { $0.isEmpty ? nil : $0 }
        app.teamID = try r.string("\(base).team_id").flatMap { $0.isEmpty ? nil : $0 }
        app.certificatePath = try path("certificate_path", secret: false)
        app.certificateKeyPath = try path("certificate_key_path", secret: true)
        app.p12Path = try path("p12_path", secret: true)
        app.p12PassphraseFile = try path("p12_passphrase_file", secret: true)
        app.trustedCertificatesPath = try path("trusted_certificates_path", secret: false)
        app.host = try r.string("\(base).host").flatMap { $0.isEmpty ? nil : $0 }
        if let host = app.host, APNsEndpoint(parsing: host) == nil {
            throw r.fail("\(base).host", "must be host or host:port (got \"\(host)\")")
        }
        let methods = [app.keyPath, app.certificatePath, app.p12Path].compactMap { $0 }.count
        guard methods == 1 else {
            throw r.fail(base, "set exactly one of key_path (with key_id and team_id), certificate_path (with certificate_key_path) or p12_path")
        }
        if app.keyPath != nil {
            guard app.keyID != nil else { throw r.required("\(base).key_id", fields: appFields, "is required with key_path") }
            guard app.teamID != nil else { throw r.required("\(base).team_id", fields: appFields, "is required with key_path") }
        }
        if app.certificatePath != nil, app.certificateKeyPath == nil {
            throw r.required("\(base).certificate_key_path", fields: appFields, "is required with certificate_path")
        }
        // Load once now, so a key that does not parse stops start-up here, naming the app.
        do {
            _ = try app.load()
        } catch {
            throw r.fail(base, error.message)
        }
        return app
    }
}
