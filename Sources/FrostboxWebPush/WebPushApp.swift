import FrostboxPushEngine

/// One Web Push app: the sites whose pages subscribe with its VAPID public key. Its name is
/// what a browser's registration names as `app`.
public struct WebPushApp: Sendable {
    /// The app's name (`webpush.apps.<name>`).
    public let name: String
    /// The application server's key pair.
    public let key: VAPIDKey
    /// Who push services may contact about this app's messages.
    public let subject: VAPIDSubject
    /// Most messages a minute over every push service (0: unpaced).
    public let messagesPerMinute: Int

    public init(name: String, key: VAPIDKey, subject: VAPIDSubject, messagesPerMinute: Int = 0) {
        self.name = name
        self.key = key
        self.subject = subject
        self.messagesPerMinute = messagesPerMinute
    }
}

/// How Web Push connects: the HTTP/2 settings of each push service's connections, and the
/// certificates a self-hosted (private) push service is trusted by instead of the system's.
public struct WebPushConnectionSettings: Sendable {
    public var http2: HTTP2ConnectionSettings
    public var trustedCertificatesPath: String?

    /// The answers' bodies are read up to 4 KiB: a push service says little, and an endpoint
    /// is a URL a client chose.
    public init(http2: HTTP2ConnectionSettings = WebPushConnectionSettings.defaultHTTP2, trustedCertificatesPath: String? = nil) {
        self.http2 = http2
        self.trustedCertificatesPath = trustedCertificatesPath
    }

    /// Push services' connections: as the other platforms', but answer bodies capped at 4 KiB.
    public static var defaultHTTP2: HTTP2ConnectionSettings {
        var settings = HTTP2ConnectionSettings()
        settings.maximumResponseBodySize = 4 * 1024
        return settings
    }
}
