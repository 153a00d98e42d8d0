import Foundation
import FrostboxAPNs
import FrostboxCore
import FrostboxFCM
import Logging
import ServiceLifecycle

/// The push capability of a Frostbox process: iOS devices through the APNs router over the
/// configured apps, Android devices through the FCM router over its apps, browsers through the
/// Web Push router over theirs, and a platform with no app configured through the log-only sink. Key and certificate files are read (and
/// checked) when this is made; connections open on the first push, so commands that never
/// push open none. `shutdown()` closes them (`serve` does it on the way out).
public final class PushComponents: Sendable {
    /// The configured apps, keys loaded; empty means log-only.
    public let apps: [APNsAppSettings]
    /// The app for pushes without a topic.
    public let defaultApp: String?
    let logger: Logger
    private let router: LazyPushRouter<APNsPushRouter>
    private let logOnly: LogOnlyPushSender
    /// The configured Android apps, keys loaded; empty means Android alerts are only logged.
    public let fcmApps: [FCMApp]
    private let fcmSettings: FCMSettings
    private let fcmRouter: LazyPushRouter<FCMPushRouter>
    /// Browsers' side (nil: browsers' pushes are logged, e.g. in commands without a database).
    public let web: WebPushComponents?

    /// - Parameter budget: the cluster's push budget (`DeviceDatabase.pushBudget`); nil: this
    ///   process paces alone.
    public convenience init(
        settings: APNsSettings, fcm: FCMSettings = FCMSettings(), web: WebPushComponents? = nil, budget: (any PushBudgetStore)? = nil,
        logger: Logger
    ) throws(PushConfigurationError) {
        var fcmApps: [FCMApp] = []
        for app in fcm.apps {
            for secret in app.secretPaths { SecretFile.warnIfOpen(secret, logger: logger) }
            do throws(FCMConfigurationError) {
                fcmApps.append(try app.load())
            } catch {
                throw .fcm(error)
            }
        }
        if fcmApps.isEmpty {
            logger.notice("no FCM app configured: Android devices' pushes are only logged (set fcm.apps to send them)")
        }
        do throws(APNsConfigurationError) {
            try self.init(apns: settings, fcmApps: fcmApps, fcm: fcm, web: web, budget: budget, logger: logger)
        } catch {
            throw .apns(error)
        }
    }

    private init(
        apns settings: APNsSettings, fcmApps: [FCMApp], fcm: FCMSettings, web: WebPushComponents?, budget: (any PushBudgetStore)?, logger: Logger
    ) throws(APNsConfigurationError) {
        self.fcmApps = fcmApps
        self.web = web
        self.fcmSettings = fcm
        self.fcmRouter = LazyPushRouter(name: "FCM", logger: logger) {
            try FCMPushRouter(
                apps: fcmApps, defaultPackageName: fcm.defaultApp, settings: fcm.connection, retryPolicy: fcm.retry,
                clock: { Int64(Date().timeIntervalSince1970) }, budget: budget, logger: logger)
        }
        let resolved = try settings.resolved()
        var apps: [APNsAppSettings] = []
        for app in resolved.apps {
            // Keys named in the apps file get the same permission check as those in the
            // configuration (a warning naming the file, never its contents).
            for secret in [app.keyPath, app.certificateKeyPath, app.p12Path, app.p12PassphraseFile].compactMap({ $0 }) {
                SecretFile.warnIfOpen(secret, logger: logger)
            }
            do throws(APNsConfigurationError) {
                apps.append(try app.load())
            } catch  where !error.message.contains(app.bundleID) {
                // "cannot read /etc/frostbox/AuthKey.p8" alone does not say which app needs it.
                throw .invalidApp(app.bundleID, error.message)
            }
        }
        if let defaultApp = resolved.defaultApp, !apps.contains(where: { $0.bundleID == defaultApp }) {
            throw .unknownDefaultApp(defaultApp)
        }
        self.apps = apps
        self.defaultApp = resolved.defaultApp
        self.router = LazyPushRouter(name: "APNs", logger: logger) {
            [apps, defaultBundleID = resolved.defaultApp, connection = settings.connection, retry = settings.retry] in
            try APNsPushRouter(
                apps: apps, defaultBundleID: defaultBundleID, settings: connection, retryPolicy: retry,
                clock: { Int64(Date().timeIntervalSince1970) }, logger: logger)
        }
        self.logger = logger
        self.logOnly = LogOnlyPushSender(logger: logger)
        if apps.isEmpty {
            logger.notice("no APNs app configured: pushes are only logged (set FROSTBOX_APNS_APPS_FILE to send them)")
        }
    }

    /// The sender to push through: iOS devices through APNs, Android devices through FCM,
    /// each through the log-only sink when its platform has no app configured.
    public var sender: any PushSender {
        PushSenderByPlatform([
            .ios: apps.isEmpty ? logOnly : router, .android: fcmApps.isEmpty ? logOnly : fcmRouter,
            .web: web?.sender(fallback: logOnly) ?? logOnly,
        ])
    }

    /// Which devices these apps can reach, for registration (`PushReach`): every platform
    /// log-only when no app is configured at all (and in the demo, which configures none);
    /// otherwise the configured apps of each platform, and a platform without apps refused.
    public var reach: PushReach {
        let webApps = web?.apps ?? []
        guard !apps.isEmpty || !fcmApps.isEmpty || !webApps.isEmpty else { return .logOnly }
        func platform(_ ids: [String], defaultApp: String?) -> PushReach.Platform {
            ids.isEmpty ? .notConfigured : .apps(Set(ids), defaultApp: defaultApp ?? (ids.count == 1 ? ids[0] : nil))
        }
        return PushReach([
            .ios: platform(apps.map(\.bundleID), defaultApp: defaultApp),
            .android: platform(fcmApps.map(\.settings.packageName), defaultApp: fcmSettings.defaultApp),
            .web: platform(webApps, defaultApp: web?.settings.defaultApp),
        ])
    }

    /// Where each paced FCM app stands (empty before the first Android push).
    public var pacing: [PushPacing] { (fcmRouter.current?.pacing ?? []) + (web?.pacing ?? []) }

    /// HTTP/2 connections open now, by platform (`ios`: APNs, `android`: FCM; 0 for the
    /// log-only sink or before the first push).
    public var connectionsByPlatform: [String: Int] {
        [
            DevicePlatform.ios.rawValue: router.openConnections, DevicePlatform.android.rawValue: fcmRouter.openConnections,
            DevicePlatform.web.rawValue: web?.openConnections ?? 0,
        ]
    }

    /// HTTP/2 streams awaiting an answer now, by platform.
    public var streamsByPlatform: [String: Int] {
        [
            DevicePlatform.ios.rawValue: router.streamsInFlight, DevicePlatform.android.rawValue: fcmRouter.streamsInFlight,
            DevicePlatform.web.rawValue: web?.streamsInFlight ?? 0,
        ]
    }

    /// What the metrics read of the transport after pushes.
    public var gauges: PushTransportGauges {
        PushTransportGauges(
            connections: { [self] in connectionsByPlatform }, streamsInFlight: { [self] in streamsByPlatform }, pacing: { [self] in pacing })
    }

    /// Closes the APNs, FCM and Web Push connections, if any were opened.
    public func shutdown() async {
        await web?.shutdown()
        await fcmRouter.shutdown()
        await router.shutdown()
    }
}

/// Why the push capability could not be configured.
public enum PushConfigurationError: Error, CustomStringConvertible {
    case apns(APNsConfigurationError)
    case fcm(FCMConfigurationError)

    public var message: String {
        switch self {
        case .apns(let error): error.message
        case .fcm(let error): error.message
        }
    }

    public var description: String { message }
}

/// Closes the APNs connections after the services that push have stopped.
struct PushShutdownService: Service {
    let push: PushComponents

    func run() async throws {
        try? await gracefulShutdown()
        await push.shutdown()
    }
}
