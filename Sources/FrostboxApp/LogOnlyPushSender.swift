import Foundation
import FrostboxCore
import Logging

/// The push port for a platform with no credentials configured: logs what would have been
/// sent (token redacted) and reports an alert delivered, so a quick-start install runs end to
/// end. A verification push is never reported delivered: no gateway saw the token, so the
/// log proves no device real (issue #43); it fails with `PushOutcome.notConfiguredReason`
/// and the device stays pending. It serves both platforms, so it lives here, not in an
/// adapter of one (its lines are tagged `[FrostboxApp]`, never `[FrostboxAPNs]` for an
/// Android push).
public struct LogOnlyPushSender: PushSender {
    private let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    public func send(_ batch: [PushNotification]) -> PushOutcomes {
        PushOutcomes(batch.map(log))
    }

    private func log(_ notification: PushNotification) -> PushOutcome {
        let content = notification.content
        guard notification.purpose == .alert else {
            logger.debug(
                "verification push not sent (log only: no credentials configured for this platform)",
                metadata: ["token": "\(notification.token.redacted)", "platform": "\(notification.platform)"])
            return .permanentFailure(status: 0, reason: PushOutcome.notConfiguredReason)
        }
        logger.info(
            "push (log only: no credentials configured for this platform)",
            metadata: [
                "token": "\(notification.token.redacted)",
                "platform": "\(notification.platform)",
                "app": "\(notification.app ?? "(default)")",
                "message-id": "\(notification.messageID)",
                "title": "\(content.title ?? content.titleLocKey ?? "-")",
                "body": "\(content.body ?? content.bodyLocKey ?? "-")",
                "collapse-id": "\(notification.collapseID ?? "-")",
            ])
        return .delivered(messageID: notification.messageID)
    }
}
