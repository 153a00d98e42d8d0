import Foundation
import FrostboxCore

/// The body of `POST /admin/push-test`.
struct PushTestBody: RequestBody {
    let token: String
    let platform: String?
    let app: String?
    let topic: String?
    let environment: String?
    let title: String?
    let body: String?

    enum CodingKeys: String, CodingKey, CaseIterable {
        case token, platform, app, topic, environment, title, body
    }

    static let fields = JSONFields.keys(CodingKeys.self)

    func notification() throws(ValidationError) -> PushNotification {
        let registration = try WireValidation.registration(
            rawToken: token, body: DeviceBody(platform: platform, app: app, topic: topic, environment: environment, locale: nil))
        for (field, value) in [("title", title), ("body", body)] {
            if let value, value.unicodeScalars.count > 200 || value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                throw ValidationError(.invalidField, field: field, "\(field) must be at most 200 characters without control characters")
            }
        }
        return PushNotification(
            token: registration.token, platform: registration.platform, app: registration.app, environment: registration.environment,
            messageID: UUID().uuidString.lowercased(), priority: .immediate, expiration: 0,
            content: AlertContent(title: title ?? "Frostbox test", body: body ?? "Push delivery works.", sound: "default"))
    }
}

/// The answer of `POST /admin/push-test`: what the platform (APNs, FCM) made of the push.
struct PushTestResult: Encodable {
    let outcome: String
    let messageID: String
    let status: Int?
    let reason: String?
    let token: String

    init(notification: PushNotification, outcome: PushOutcome) {
        self.outcome = outcome.failureClass
        token = notification.token.redacted
        switch outcome {
        case .delivered(let messageID):
            self.messageID = messageID
            status = 200
            reason = nil
        case .invalidToken(let reason, _):
            messageID = notification.messageID
            status = nil
            self.reason = reason
        case .permanentFailure(let status, let reason):
            messageID = notification.messageID
            self.status = status
            self.reason = reason
        case .authFailure(let reason), .temporaryFailure(let reason):
            messageID = notification.messageID
            status = nil
            self.reason = reason
        }
    }

    enum CodingKeys: String, CodingKey {
        case outcome, status, reason, token
        case messageID = "message_id"
        /// The same id under its first name, kept one release for clients that read it (deprecated).
        case deprecatedAPNsID = "apns_id"
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(outcome, forKey: .outcome)
        try container.encode(messageID, forKey: .messageID)
        try container.encode(messageID, forKey: .deprecatedAPNsID)
        try container.encodeIfPresent(status, forKey: .status)
        try container.encodeIfPresent(reason, forKey: .reason)
        try container.encode(token, forKey: .token)
    }
}
