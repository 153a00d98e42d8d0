import Foundation
import FrostboxAPNs
import FrostboxCore
import Logging

/// `frostbox push-test`: one test alert to one device through a configured APNs or FCM app.
public enum PushCommands {
    /// Why a push test could not be sent at all.
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Sends one test alert to `token` for app `bundleID` (its own environment, or sandbox)
    /// and returns the outcome; the connections are closed before it returns.
    public static func pushTest(
        config: FrostboxSettings, platform: DevicePlatform = .ios, bundleID: String, token: String, sandbox: Bool, logger: Logger
    ) async throws -> PushOutcome {
        let device: DeviceToken
        do {
            device = try DeviceToken(token, platform: platform)
        } catch {
            throw Failure(description: "--token: \(error.message)")
        }
        let push: PushComponents
        do {
            push = try PushComponents(settings: config.apns, fcm: config.fcm, logger: logger)
        } catch {
            throw Failure(description: error.message)
        }
        switch platform {
        case .ios:
            guard push.apps.contains(where: { $0.bundleID == bundleID }) else {
                let configured = push.apps.map(\.bundleID).joined(separator: ", ")
                throw Failure(
                    description: configured.isEmpty
                        ? "no APNs app is configured (apns.apps in the configuration file, or a JSON apps file: apns.apps_file, --apps-file)"
                        : "app \(bundleID) is not configured (configured: \(configured))")
            }
        case .android:
            guard push.fcmApps.contains(where: { $0.settings.packageName == bundleID }) else {
                let configured = push.fcmApps.map(\.settings.packageName).joined(separator: ", ")
                throw Failure(
                    description: configured.isEmpty
                        ? "no FCM app is configured (fcm.apps in the configuration file)"
                        : "Android app \(bundleID) is not configured (configured: \(configured))")
            }
        case .web:
            throw Failure(description: "a browser is named by its subscription: push-test --platform web --app NAME --subscription JSON")
        }
        let notification = PushNotification(
            token: device, platform: platform, app: bundleID, environment: platform == .ios && sandbox ? .sandbox : nil,
            messageID: UUID().uuidString.lowercased(),
            collapseID: "frostbox-push-test", priority: .immediate,
            content: AlertContent(
                title: "Frostbox", body: "Test notification: pushes reach this device.", sound: "default", group: "frostbox-test"))
        let outcome = await push.sender.send(notification)
        await push.shutdown()
        return outcome
    }

    /// What `push-test` prints, and whether the push was delivered (its exit status).
    public struct Report: Sendable {
        public let outcome: PushOutcome
        public var line: String { PushCommands.describe(outcome) }
        public var delivered: Bool {
            if case .delivered = outcome { return true }
            return false
        }
    }

    /// `pushTest`, as the command prints it.
    public static func pushTestReport(
        config: FrostboxSettings, platform: DevicePlatform = .ios, app: String, token: String, sandbox: Bool, logger: Logger
    ) async throws -> Report {
        Report(outcome: try await pushTest(config: config, platform: platform, bundleID: app, token: token, sandbox: sandbox, logger: logger))
    }

    /// One line for a person: what became of the push.
    public static func describe(_ outcome: PushOutcome) -> String {
        switch outcome {
        case .delivered(let messageID):
            return "delivered (message id \(messageID))"
        case .invalidToken(let reason, let unregisteredAtMilliseconds):
            if let unregisteredAtMilliseconds {
                let date = Date(timeIntervalSince1970: TimeInterval(unregisteredAtMilliseconds) / 1000)
                return "invalid token: \(reason) (no longer valid since \(date.formatted(.iso8601)))"
            }
            return "invalid token: \(reason)"
        case .permanentFailure(let status, let reason):
            return "permanent failure: HTTP \(status) \(reason)"
        case .authFailure(let reason):
            return "authentication failure: \(reason) (check the key id, team id, key file or certificate; sending for this app stops)"
        case .temporaryFailure(let reason):
            return "temporary failure after retries: \(reason)"
        }
    }
}
