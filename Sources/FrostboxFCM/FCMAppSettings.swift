import Foundation
import FrostboxCore
import FrostboxPushEngine

/// One Android app Frostbox pushes to, as configured (`fcm.apps.<name>.…`): its package name,
/// the service-account key file, and where its messages go. `load` reads the key.
public struct FCMAppSettings: Sendable, Hashable {
    /// FCM's production endpoint.
    public static let defaultURL = "https://fcm.googleapis.com"

    /// The app's package name (`PushNotification.app`).
    public var packageName: String
    /// The service-account JSON key file (`service_account_path`).
    public var serviceAccountPath: String
    /// The Firebase project (`project_id`); nil: the key file's.
    public var projectID: String?
    /// FCM's base URL (`url`).
    public var url: String
    /// The Android notification channel alerts are posted in (`channel_id`), if any.
    public var channelID: String?
    /// PEM file with the certificate(s) to trust instead of the system roots (the loopback
    /// double's self-signed one), for both the token URI and `url`.
    public var trustedCertificatesPath: String?
    /// The app's quota in messages a minute (`messages_per_minute`), shared by every instance
    /// of a cluster on PostgreSQL; 0: unpaced. FCM allows 600,000 a minute per project by
    /// default (apps of one project share it: give each its part).
    public var messagesPerMinute = FCMAppSettings.defaultMessagesPerMinute

    /// FCM's default project quota.
    public static let defaultMessagesPerMinute = 600_000

    /// Takes the settings as a configuration file spells them: nil means the default.
    public init(
        packageName: String, serviceAccountPath: String, projectID: String? = nil, url: String? = nil, channelID: String? = nil,
        trustedCertificatesPath: String? = nil
    ) {
        self.packageName = packageName
        self.serviceAccountPath = serviceAccountPath
        self.projectID = projectID
        self.url = url ?? Self.defaultURL
        self.channelID = channelID
        self.trustedCertificatesPath = trustedCertificatesPath
    }

    /// Files that hold secrets, for the configuration reader's permission check (a warning
    /// naming the file when group or others may read it).
    public var secretPaths: [String] { [serviceAccountPath] }

    /// Checks the settings and reads the key file with `read` (the configuration reader
    /// passes its secret-file reader, which checks permissions and size).
    public func load(read: (String) throws -> Data = FCMServiceAccount.readFile) throws(FCMConfigurationError) -> FCMApp {
        guard !packageName.isEmpty, packageName.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            throw .invalidApp(packageName, "package name must be printable ASCII without spaces")
        }
        guard let base = URL(string: url), base.scheme == "https", base.host != nil, base.query == nil else {
            // Messages go over HTTP/2 with TLS (ALPN h2), as FCM serves them.
            throw .invalidApp(packageName, "url \(url) is not an https base URL")
        }
        if let channelID, channelID.isEmpty {
            throw .invalidApp(packageName, "channel_id must not be empty")
        }
        let account: FCMServiceAccount
        do throws(FCMConfigurationError) {
            account = try FCMServiceAccount(path: serviceAccountPath, read: read)
        } catch {
            throw .invalidApp(packageName, error.message)
        }
        let project = projectID ?? account.projectID
        guard !project.isEmpty, project.utf8.allSatisfy({ Self.isProjectByte($0) }) else {
            throw .invalidApp(packageName, "project id \(project) must be letters, digits and dashes")
        }
        return FCMApp(settings: self, account: account, projectID: project)
    }

    private static func isProjectByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
    }
}

/// An app ready to send for: its settings, its service account loaded, its project resolved.
public struct FCMApp: Sendable, CustomStringConvertible {
    public let settings: FCMAppSettings
    public let account: FCMServiceAccount
    public let projectID: String

    /// For apps made in memory (tests, tools); `load` makes the others.
    public init(settings: FCMAppSettings, account: FCMServiceAccount, projectID: String? = nil) {
        self.settings = settings
        self.account = account
        self.projectID = projectID ?? settings.projectID ?? account.projectID
    }

    /// `POST` target of this app's messages.
    public var sendURL: String {
        var base = settings.url
        while base.hasSuffix("/") { base.removeLast() }
        return base + sendPath
    }

    /// The `:path` of this app's messages, below the base URL's own path.
    var sendPath: String {
        var prefix = URL(string: settings.url)?.path ?? ""
        while prefix.hasSuffix("/") { prefix.removeLast() }
        return prefix + "/v1/projects/" + projectID + "/messages:send"
    }

    /// The host and port this app's messages go to (`url`'s, 443 by default).
    var endpoint: HTTP2Endpoint? {
        guard let url = URL(string: settings.url), let host = url.host, !host.isEmpty else { return nil }
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return HTTP2Endpoint(host: bare, port: url.port ?? 443)
    }

    public var description: String { "FCMApp(\(settings.packageName), project: \(projectID), account: \(account.clientEmail))" }
}
