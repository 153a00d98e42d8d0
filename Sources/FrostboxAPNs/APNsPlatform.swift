import FrostboxCore
import FrostboxPushEngine
import Logging
import NIOCore

/// What APNs adds to the push engine for one app: the request (validated, built once:
/// `apns-topic` the bundle id, the payload, the headers Apple reads), the gateway of the
/// device's environment, the provider token shared by the apps of a key (or none: the TLS
/// client certificate authorizes), and Apple's status table.
package struct APNsPlatform: PushPlatform {
    /// The app's bundle id, sent as `apns-topic`.
    package let bundleID: String
    private let defaultEnvironment: PushEnvironment
    private let gateways: [PushEnvironment: HTTP2Gateway]
    private let payloads: APNsPayloadEncoder
    private let issuer: APNsProviderTokenIssuer?
    private let logger: Logger

    init(
        app: APNsAppSettings, gateways: [PushEnvironment: HTTP2Gateway], payloads: APNsPayloadEncoder, issuer: APNsProviderTokenIssuer?,
        logger: Logger
    ) {
        self.bundleID = app.bundleID
        self.defaultEnvironment = app.environment
        self.gateways = gateways
        self.payloads = payloads
        self.issuer = issuer
        self.logger = logger
    }

    package var name: String { "APNs" }
    package var logMetadata: (key: String, value: String) { ("apns.topic", bundleID) }
    package var credentialsHint: String { "the credentials are fixed" }

    package func prepare(_ notification: PushNotification) -> Result<PushRequest, PushRefusal> {
        let request: APNsRequest
        switch APNsRequest.make(notification, topic: bundleID, payloads: payloads) {
        case .success(let made):
            request = made
        case .failure(let refusal):
            logger.debug("push refused before sending", metadata: ["token": "\(notification.token)", "reason": "\(refusal.reason)"])
            return .failure(PushRefusal(.permanentFailure(status: refusal.status, reason: refusal.reason)))
        }
        guard let gateway = gateways[notification.environment ?? defaultEnvironment] else {
            return .failure(PushRefusal(.permanentFailure(status: 400, reason: "BadEnvironment")))
        }
        return .success(PushRequest(gateway: gateway, path: request.path, fields: request.fields, body: request.body))
    }

    package func credential() async -> PushCredential<APNsProviderToken> {
        guard let issuer else { return .ready(nil) }
        do {
            return .ready(try issuer.token())
        } catch {
            return .refused("CannotSignProviderToken")
        }
    }

    package func renew(rejected: APNsProviderToken) async -> PushCredential<APNsProviderToken> {
        guard let issuer else { return .ready(nil) }
        do {
            return .ready(try issuer.renew(rejected: rejected))
        } catch {
            return .refused("CannotSignProviderToken")
        }
    }

    package func authorization(_ credential: APNsProviderToken?) -> String? { credential?.bearer }

    package func judge(status: Int, header: String?, body: ByteBuffer?, for notification: PushNotification) -> PushVerdict {
        switch APNsVerdict.judge(status: status, messageID: header, body: body, sentID: notification.messageID) {
        case .final(let outcome): .final(outcome)
        case .expiredProviderToken: .renewCredential(reason: "ExpiredProviderToken", otherwise: .temporaryFailure(reason: "ExpiredProviderToken"))
        case .temporary(let reason): .temporary(reason: reason, retryAfter: nil)
        }
    }
}
