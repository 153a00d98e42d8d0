import FrostboxCore
import NIOCore
import NIOHPACK

/// What one platform (APNs, FCM, …) adds to the push engine for one app: how a push becomes a
/// request, how requests are authorized, and what an answer means. Everything else — batches,
/// retries with backoff and `Retry-After`, sending alone after a lost connection, the stop on
/// refused credentials, the transport — is the engine's (`PushClient`, `HTTP2Gateway`).
package protocol PushPlatform: Sendable {
    /// What authorizes requests (a provider token, an OAuth2 access token); nil when the
    /// connection itself does (a TLS client certificate).
    associatedtype Credential: Sendable & Equatable

    /// The platform's name for logs: `APNs`, `FCM`.
    var name: String { get }
    /// The app's name in logs, under the platform's metadata key (`apns.topic`, `fcm.app`).
    var logMetadata: (key: String, value: String) { get }
    /// What to fix when the platform refuses the app's credentials (said when sending stops).
    var credentialsHint: String { get }

    /// The request of a push and the gateway it goes to, or the outcome that refuses it unsent.
    func prepare(_ notification: PushNotification) -> Result<PushRequest, PushRefusal>
    /// The credential the next requests carry.
    func credential() async -> PushCredential<Credential>
    /// A new credential after the platform refused `rejected`.
    func renew(rejected: Credential) async -> PushCredential<Credential>
    /// The `authorization` header a credential gives, if any.
    func authorization(_ credential: Credential?) -> String?
    /// What an answer means. Called on an event loop: quick, no I/O.
    func judge(status: Int, header: String?, body: ByteBuffer?, for notification: PushNotification) -> PushVerdict
}

/// One push as its platform renders it, and where it goes. The same bytes every attempt.
package struct PushRequest: Sendable {
    package let gateway: HTTP2Gateway
    package let path: String
    /// The regular header fields but `authorization` and `content-length`.
    package let fields: HPACKHeaders
    package let body: ByteBuffer

    package init(gateway: HTTP2Gateway, path: String, fields: HPACKHeaders, body: ByteBuffer) {
        self.gateway = gateway
        self.path = path
        self.fields = fields
        self.body = body
    }
}

/// A push refused before anything was sent, with its outcome.
package struct PushRefusal: Error, Sendable {
    package let outcome: PushOutcome

    package init(_ outcome: PushOutcome) { self.outcome = outcome }
}

/// A credential, or why there is none.
package enum PushCredential<Credential: Sendable>: Sendable {
    /// Ready (nil: the connection authorizes).
    case ready(Credential?)
    /// Refused for good (a key that cannot sign, an account the token endpoint refuses): the
    /// app stops sending.
    case refused(String)
    /// Not now (the token endpoint did not answer): a temporary failure of the push.
    case unavailable(String)
}

/// What one answer means for its push.
package enum PushVerdict: Sendable, Equatable {
    /// Nothing more to do (`authFailure` stops the app's sending).
    case final(PushOutcome)
    /// The credential was refused: renew it and send again, once; `otherwise` is the outcome
    /// when it was renewed already or there is none to renew.
    case renewCredential(reason: String, otherwise: PushOutcome)
    /// Worth retrying, after at least `retryAfter` when the server said so.
    case temporary(reason: String, retryAfter: Duration?)
}
