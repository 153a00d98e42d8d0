import Foundation
import FrostboxCore
import FrostboxHTTP
import FrostboxWebPush
import Logging

/// `frostbox push-test --platform web`: one test push to a browser, named by its subscription
/// (what the page's `subscription.toJSON()` gives), not by a stored device.
extension PushCommands {
    /// `subscription.toJSON()` as the command takes it.
    struct SubscriptionJSON: Decodable {
        struct Keys: Decodable {
            let p256dh: String
            let auth: String
        }
        let endpoint: String
        let keys: Keys
    }

    /// Sends one visible test push through Web Push app `app` to the browser whose
    /// subscription `json` is; the connections are closed before it returns.
    public static func webPushTest(config: FrostboxSettings, app: String, subscription json: String, logger: Logger) async throws -> PushOutcome {
        let subscription: WebPushSubscription
        do {
            let parsed = try JSONDecoder().decode(SubscriptionJSON.self, from: Data(json.utf8))
            subscription = try WebPushSubscription(endpoint: parsed.endpoint, p256dh: parsed.keys.p256dh, auth: parsed.keys.auth)
        } catch let error as ValidationError {
            throw Failure(description: "--subscription: \(error.message)")
        } catch {
            throw Failure(description: "--subscription must be the JSON of subscription.toJSON() ({\"endpoint\": …, \"keys\": {\"p256dh\": …, \"auth\": …}})")
        }
        guard config.webPush.apps.contains(where: { $0.name == app }) else {
            let configured = config.webPush.apps.map(\.name).joined(separator: ", ")
            throw Failure(
                description: configured.isEmpty
                    ? "no Web Push app is configured (webpush.apps in the configuration file)"
                    : "Web Push app \(app) is not configured (configured: \(configured))")
        }
        let web: WebPushComponents
        do {
            web = try WebPushComponents(settings: config.webPush, directory: NoStoredBrowsers(), logger: logger)
            try await web.serviceGuard.admit(subscription)
        } catch let error as ValidationError {
            throw Failure(description: "--subscription: \(error.message)")
        }
        let push = try PushComponents(settings: APNsSettings(), web: web, logger: logger)
        var notification = PushNotification(
            token: WebPushRegistration.randomID(), platform: .web, app: app,
            messageID: UUID().uuidString.lowercased(), collapseID: "frostbox-push-test", expiration: Int64(Date().timeIntervalSince1970) + 3_600,
            content: AlertContent(title: "Frostbox", body: "Test notification: pushes reach this browser."))
        notification.webPush = subscription
        let outcome = await push.sender.send(notification)
        await push.shutdown()
        return outcome
    }

    /// `webPushTest`, as the command prints it.
    public static func webPushTestReport(config: FrostboxSettings, app: String, subscription: String, logger: Logger) async throws -> Report {
        Report(outcome: try await webPushTest(config: config, app: app, subscription: subscription, logger: logger))
    }

    /// The command's browser comes with its subscription: no store to look one up in.
    struct NoStoredBrowsers: WebPushDirectory {
        func webPushSubscriptions(of tokens: [DeviceToken]) async throws -> [DeviceToken: WebPushSubscription] { [:] }
    }
}
