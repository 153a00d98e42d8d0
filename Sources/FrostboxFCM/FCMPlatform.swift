import Foundation
import FrostboxCore
import FrostboxPushEngine
import NIOCore
import NIOHPACK

/// What FCM adds to the push engine for one Android app: the HTTP v1 message (rendered once),
/// the app's gateway (its own HTTP/2 connections to FCM), the OAuth2 access token of its
/// service account (shared with the other apps of the account), and Google's error table.
package struct FCMPlatform: PushPlatform {
    /// The app's package name.
    package let packageName: String
    private let path: String
    private let gateway: HTTP2Gateway
    private let bodies: FCMMessageTemplates
    private let tokens: FCMAccessTokenSource
    private let clock: @Sendable () -> Int64
    private static let fields: HPACKHeaders = ["content-type": "application/json; charset=UTF-8"]

    init(
        app: FCMApp, gateway: HTTP2Gateway, tokens: FCMAccessTokenSource, clock: @escaping @Sendable () -> Int64
    ) {
        self.packageName = app.settings.packageName
        self.path = app.sendPath
        self.gateway = gateway
        self.bodies = FCMMessageTemplates(renderer: FCMMessageRenderer(channelID: app.settings.channelID))
        self.tokens = tokens
        self.clock = clock
    }

    package var name: String { "FCM" }
    package var logMetadata: (key: String, value: String) { ("fcm.app", packageName) }
    package var credentialsHint: String { "the service account is fixed" }

    package func prepare(_ notification: PushNotification) -> Result<PushRequest, PushRefusal> {
        .success(PushRequest(gateway: gateway, path: path, fields: Self.fields, body: bodies.body(for: notification, now: clock())))
    }

    package func credential() async -> PushCredential<FCMAccessToken> {
        Self.credential(await tokens.token())
    }

    package func renew(rejected: FCMAccessToken) async -> PushCredential<FCMAccessToken> {
        Self.credential(await tokens.renew(rejected: rejected))
    }

    private static func credential(_ result: Result<FCMAccessToken, FCMTokenFailure>) -> PushCredential<FCMAccessToken> {
        switch result {
        case .success(let token): .ready(token)
        case .failure(.refused(let reason)): .refused(reason)
        case .failure(.unavailable(let reason)): .unavailable(reason)
        }
    }

    package func authorization(_ credential: FCMAccessToken?) -> String? { credential?.bearer }

    package func judge(status: Int, header: String?, body: ByteBuffer?, for notification: PushNotification) -> PushVerdict {
        switch FCMVerdict.judge(status: status, retryAfter: header, answer: body) {
        case .final(let outcome): return .final(outcome)
        case .unauthenticated(let reason): return .renewCredential(reason: reason, otherwise: .authFailure(reason: reason))
        case .temporary(let reason, let retryAfter): return .temporary(reason: reason, retryAfter: retryAfter)
        }
    }
}
