import Foundation
import FrostboxAPNs
import FrostboxCore
import FrostboxPushEngine

/// The APNs apps Frostbox pushes for. With no app configured, pushes go to the log-only sink.
public struct APNsSettings: Sendable {
    /// Apps configured in code (tests, embedding).
    public var apps: [APNsAppEntry] = []
    /// A JSON file listing more apps (`apns.apps_file`, `FROSTBOX_APNS_APPS_FILE`); read when
    /// components start.
    public var appsFile: String?
    /// The app for devices that registered without a topic; nil with one app: that app.
    public var defaultApp: String?
    /// Connections per gateway, streams, deadlines, idle timeout, pings.
    public var connection = APNsConnectionSettings()
    /// Retries of temporary failures.
    public var retry = PushRetryPolicy()

    public init() {}

    /// Every app: the ones in code, then the file's; the file's default app unless one is set.
    func resolved() throws(APNsConfigurationError) -> (apps: [APNsAppEntry], defaultApp: String?) {
        guard let appsFile else { return (apps, defaultApp) }
        guard let data = FileManager.default.contents(atPath: appsFile) else { throw .unreadableFile(appsFile) }
        let file: PushAppsFile
        do {
            file = try JSONDecoder().decode(PushAppsFile.self, from: data)
        } catch {
            throw .invalidApp(appsFile, "not a valid APNs apps file: \(error)")
        }
        return (apps + file.apps, defaultApp ?? file.defaultApp)
    }
}

/// One app: bundle id, environment or host, and either a `.p8` key (token auth) or a client
/// certificate (PEM certificate + key, or `.p12`). Paths only: the files are read at start.
public struct APNsAppEntry: Sendable, Codable, Hashable {
    /// The bundle id (`apns-topic`).
    public var bundleID: String
    /// `production` or `sandbox`: the gateway for devices that did not say.
    public var environment: PushEnvironment = .production
    /// `host:port` replacing Apple's gateways (the mock, a staging proxy).
    public var host: String?
    /// PEM certificate(s) to trust for `host` instead of the system roots.
    public var trustedCertificatesPath: String?
    /// Token auth: the `.p8` file, its key id and the team id.
    public var keyPath: String?
    public var keyID: String?
    public var teamID: String?
    /// Certificate auth: PEM certificate and PEM key, or a `.p12` with its passphrase file.
    public var certificatePath: String?
    public var certificateKeyPath: String?
    public var p12Path: String?
    public var p12PassphraseFile: String?

    public init(bundleID: String, environment: PushEnvironment = .production) {
        self.bundleID = bundleID
        self.environment = environment
    }

    enum CodingKeys: String, CodingKey {
        case bundleID = "bundle_id"
        case environment, host
        case trustedCertificatesPath = "trusted_certificates_path"
        case keyPath = "key_path"
        case keyID = "key_id"
        case teamID = "team_id"
        case certificatePath = "certificate_path"
        case certificateKeyPath = "certificate_key_path"
        case p12Path = "p12_path"
        case p12PassphraseFile = "p12_passphrase_file"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        bundleID = try container.decode(String.self, forKey: .bundleID)
        environment = try container.decodeIfPresent(PushEnvironment.self, forKey: .environment) ?? .production
        host = try container.decodeIfPresent(String.self, forKey: .host)
        trustedCertificatesPath = try container.decodeIfPresent(String.self, forKey: .trustedCertificatesPath)
        keyPath = try container.decodeIfPresent(String.self, forKey: .keyPath)
        keyID = try container.decodeIfPresent(String.self, forKey: .keyID)
        teamID = try container.decodeIfPresent(String.self, forKey: .teamID)
        certificatePath = try container.decodeIfPresent(String.self, forKey: .certificatePath)
        certificateKeyPath = try container.decodeIfPresent(String.self, forKey: .certificateKeyPath)
        p12Path = try container.decodeIfPresent(String.self, forKey: .p12Path)
        p12PassphraseFile = try container.decodeIfPresent(String.self, forKey: .p12PassphraseFile)
    }

    /// Reads the key or certificate files and checks the settings fit together.
    public func load() throws(APNsConfigurationError) -> APNsAppSettings {
        let credentials: APNsCredentials
        switch (keyPath, certificatePath, p12Path) {
        case (let keyPath?, nil, nil):
            guard let keyID, let teamID else { throw .invalidApp(bundleID, "key_path needs key_id and team_id") }
            credentials = .token(try APNsSigningKey(p8Path: keyPath, keyID: keyID, teamID: teamID))
        case (nil, let certificatePath?, nil):
            guard let certificateKeyPath else { throw .invalidApp(bundleID, "certificate_path needs certificate_key_path") }
            credentials = .certificate(try APNsClientIdentity(certificatePEMPath: certificatePath, privateKeyPEMPath: certificateKeyPath))
        case (nil, nil, let p12Path?):
            var passphrase = ""
            if let p12PassphraseFile {
                guard let data = FileManager.default.contents(atPath: p12PassphraseFile) else {
                    throw .unreadableFile(p12PassphraseFile)
                }
                passphrase = String(decoding: data, as: UTF8.self).trimmingCharacters(in: .newlines)
            }
            credentials = .certificate(try APNsClientIdentity(p12Path: p12Path, passphrase: passphrase))
        default:
            throw .invalidApp(bundleID, "set exactly one of key_path (token auth), certificate_path or p12_path")
        }
        var endpoint: APNsEndpoint?
        if let host {
            guard let parsed = APNsEndpoint(parsing: host) else { throw .invalidApp(bundleID, "host must be host or host:port") }
            endpoint = parsed
        }
        if let trustedCertificatesPath, !FileManager.default.isReadableFile(atPath: trustedCertificatesPath) {
            throw .unreadableFile(trustedCertificatesPath)
        }
        return APNsAppSettings(
            bundleID: bundleID, credentials: credentials, environment: environment, customEndpoint: endpoint,
            trustedCertificatesPath: trustedCertificatesPath)
    }
}

/// The JSON apps file: `{"default_app": "…", "apps": [{…}, …]}`.
struct PushAppsFile: Decodable {
    var defaultApp: String?
    var apps: [APNsAppEntry]

    enum CodingKeys: String, CodingKey {
        case defaultApp = "default_app"
        case apps
    }
}
