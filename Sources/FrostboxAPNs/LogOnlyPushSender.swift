import Foundation
import FrostboxCore
import Logging

/// The push port when no APNs credentials are configured: logs what would have been sent
/// (token redacted) and reports it delivered, so a quick-start install runs end to end.
public struct LogOnlyPushSender: PushSender {
    private let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    public func send(_ notification: PushNotification) async -> PushOutcome {
        let alert = notification.payload.aps.alert
        logger.info(
            "push (log only: no APNs app configured)",
            metadata: [
                "token": "\(notification.token.redacted)",
                "apns.topic": "\(notification.topic ?? "(default)")",
                "apns-id": "\(notification.apnsID)",
                "push-type": "\(notification.pushType.rawValue)",
                "title": "\(alert?.title ?? alert?.titleLocKey ?? "-")",
                "body": "\(alert?.body ?? alert?.locKey ?? "-")",
                "collapse-id": "\(notification.collapseID ?? "-")",
            ])
        return .delivered(apnsID: notification.apnsID)
    }
}
