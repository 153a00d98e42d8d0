import FrostboxPushEngine
import FrostboxWebPush

/// The browser side of the push capability (`webpush.*`): the Web Push apps (each a VAPID key
/// and subject), the push services endpoints may point at, and the transport's limits. No app
/// configured: browsers' alerts are logged, and pages get no public key.
public struct WebPushSettings: Sendable {
    /// The apps, keys loaded.
    public var apps: [WebPushApp] = []
    /// The app for browsers that registered without one; nil with one app: that app.
    public var defaultApp: String?
    /// Origins endpoints may have (`*.` for any subdomain): the public push services by default.
    public var pushServices: [String] = WebPushServices.publicServices
    /// Origins of self-hosted push services, which may be at private addresses.
    public var privatePushServices: [String] = []
    /// Deadlines, connections and the answer cap; certificates the private push services are trusted by.
    public var connection = WebPushConnectionSettings()
    /// Retries of temporary failures.
    public var retry = PushRetryPolicy()

    public init() {}

    /// The allow-list these settings name (checked when they are read).
    public func services() throws(WebPushServicesError) -> WebPushServices {
        try WebPushServices(allowed: pushServices, privateOrigins: privatePushServices)
    }
}
