/// Which devices this deployment can push to, platform by platform, and so which
/// registrations it takes (issue #43). With no push app configured at all (a quick-start
/// install, the demo) every platform is log-only and everything is taken, as devices are
/// not verified there. Once any platform has an app, a platform without one refuses new
/// devices: the log-only sink can prove no device real, so such devices could only cost
/// forecasts. A platform with apps takes devices of those apps only.
public struct PushReach: Sendable, Hashable {
    /// What one platform can reach.
    public enum Platform: Sendable, Hashable {
        /// Pushes only go to the log: every device is taken.
        case logOnly
        /// These apps (bundle ids, package names), and the one a device that names none gets.
        case apps(Set<String>, defaultApp: String?)
        /// Other platforms have apps, this one none: its devices are refused.
        case notConfigured
    }

    /// Each platform's reach; a platform not named is `logOnly`.
    public var platforms: [DevicePlatform: Platform]

    public init(_ platforms: [DevicePlatform: Platform] = [:]) {
        self.platforms = platforms
    }

    /// Everything log-only: every registration taken.
    public static let logOnly = PushReach()

    /// What `platform` can reach.
    public func reach(_ platform: DevicePlatform) -> Platform { platforms[platform] ?? .logOnly }

    /// Whether every registration is taken (nothing to check).
    public var takesEverything: Bool { platforms.values.allSatisfy { $0 == .logOnly } }

    /// Checks that a device of `platform` naming `app` (nil: the platform's default) can be
    /// pushed to; throws why not.
    public func admit(_ platform: DevicePlatform, app: String?) throws(RegistrationRefusal) {
        switch reach(platform) {
        case .logOnly: return
        case .notConfigured:
            throw RegistrationRefusal(
                .platformNotConfigured,
                "this server has no push app for \(platform) devices, so it cannot send them alerts; register a device of a configured platform")
        case .apps(let apps, let defaultApp):
            guard let app = app ?? defaultApp else {
                throw RegistrationRefusal(
                    .appRequired, "app is required: this server has \(apps.count) \(platform) apps configured and none is the default")
            }
            guard apps.contains(app) else {
                throw RegistrationRefusal(
                    .unknownApp,
                    "app is not one this server pushes for (\(apps.count) \(platform) app\(apps.count == 1 ? " is" : "s are") configured)")
            }
        }
    }
}

/// Why a registration is refused by `PushReach`. The message names how many apps are
/// configured, never which (a client must not learn other tenants' app ids).
public struct RegistrationRefusal: Error, Sendable, Hashable {
    public enum Code: String, Sendable, Hashable {
        /// The platform has no push app while others do (answered 409).
        case platformNotConfigured = "platform_not_configured"
        /// The app named is not configured for the platform (answered 400).
        case unknownApp = "unknown_app"
        /// No app named and the platform has no default (answered 400).
        case appRequired = "app_required"
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}
