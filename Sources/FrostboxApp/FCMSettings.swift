import FrostboxFCM
import FrostboxPushEngine

/// The Android side of the push capability: the FCM apps (`fcm.apps.<name>.…`), the default
/// one, and the transport's limits. No app configured: Android devices' alerts are logged.
public struct FCMSettings: Sendable {
    /// The Android apps, by package name.
    public var apps: [FCMAppSettings] = []
    /// The app for devices that registered without a package name; nil with one app: that app.
    public var defaultApp: String?
    /// Deadlines, body cap and messages in flight.
    public var connection = FCMConnectionSettings()
    /// Retries of temporary failures.
    public var retry = PushRetryPolicy.fcm

    public init() {}
}
