import Foundation
import FrostboxCore
import Logging
import Synchronization

/// Pushes for one Android app: renders the message once, sends it with the shared access
/// token, and turns the answer into a `PushOutcome`. 429 and 5xx answers, lost connections and
/// deadlines are retried with backoff (at least the server's `Retry-After`, capped), the same
/// bytes each time; a message whose connection was lost under it is retried alone (on a
/// connection that carries nothing else meanwhile), and fails permanently once lost there
/// `lossesAloneBeforeGivingUp` times — it is what makes the server drop the connection; a 401
/// renews the access token and retries once, and a second 401 (or a token endpoint refusing
/// the credentials) stops all sending for the app.
public final class FCMClient: Sendable {
    /// The app's package name.
    public let packageName: String
    private let sendURL: String
    private let renderer: FCMMessageRenderer
    private let tokens: FCMAccessTokenSource
    private let http: FCMHTTP
    private let retryPolicy: FCMRetryPolicy
    private let clock: @Sendable () -> Int64
    private let sleep: @Sendable (Duration) async throws -> Void
    private let random: @Sendable () -> Double
    private let logger: Logger
    private let stoppedReason = Mutex<String?>(nil)

    init(
        app: FCMApp, tokens: FCMAccessTokenSource, http: FCMHTTP, retryPolicy: FCMRetryPolicy, clock: @escaping @Sendable () -> Int64,
        sleep: @escaping @Sendable (Duration) async throws -> Void, random: @escaping @Sendable () -> Double, logger: Logger
    ) {
        self.packageName = app.settings.packageName
        self.sendURL = app.sendURL
        self.renderer = FCMMessageRenderer(channelID: app.settings.channelID)
        self.tokens = tokens
        self.http = http
        self.retryPolicy = retryPolicy
        self.clock = clock
        self.sleep = sleep
        self.random = random
        var logger = logger
        logger[metadataKey: "fcm.app"] = "\(app.settings.packageName)"
        self.logger = logger
    }

    /// Why sending for this app stopped (credentials refused), or nil.
    public var stopped: String? { stoppedReason.withLock { $0 } }

    /// Sends one notification, retrying temporary failures within the policy.
    public func send(_ notification: PushNotification) async -> PushOutcome {
        let body = renderer.render(notification, now: clock())
        var attempt = 1
        var attempts = retryPolicy.maximumAttempts
        var renewed = false
        var alone = false
        var lostAlone = 0
        let lossesAloneToGiveUp = max(1, retryPolicy.lossesAloneBeforeGivingUp)
        while true {
            if let reason = stopped { return .authFailure(reason: reason) }
            if Task.isCancelled { return .temporaryFailure(reason: "cancelled") }

            let temporary: (reason: String, retryAfter: Duration?)
            switch await tokens.token() {
            case .failure(.refused(let reason)):
                return stop(reason: reason)
            case .failure(.unavailable(let reason)):
                temporary = (reason, nil)
            case .success(let token):
                let result = await http.post(
                    url: sendURL, contentType: "application/json; charset=UTF-8", authorization: token.bearer, body: body, alone: alone)
                switch result {
                case .failed(let reason):
                    temporary = (reason, nil)
                case .lost(let reason):
                    if alone { lostAlone += 1 }
                    if lostAlone >= lossesAloneToGiveUp {
                        logger.warning(
                            "push given up: the server dropped the connection each time it was sent alone",
                            metadata: ["token": "\(notification.token)", "losses": "\(lostAlone)"])
                        return .permanentFailure(status: 0, reason: "ConnectionLostWhenSentAlone")
                    }
                    if !alone {
                        // Enough attempts left to be lost alone that often: a message that kills
                        // the connection ends known as such, not retried run after run.
                        attempts = max(attempts, attempt + lossesAloneToGiveUp)
                        alone = true
                    }
                    temporary = (reason, nil)
                case .response(let status, let retryAfter, let answer):
                    switch FCMVerdict.judge(status: status, retryAfter: retryAfter, body: answer) {
                    case .final(.authFailure(let reason)):
                        return stop(reason: reason)
                    case .final(let outcome):
                        return outcome
                    case .unauthenticated(let reason):
                        guard !renewed else { return stop(reason: reason) }
                        renewed = true
                        logger.notice("FCM refused the access token; renewing it and retrying once", metadata: ["token": "\(token)"])
                        if case .failure(.refused(let reason)) = await tokens.renew(rejected: token) {
                            return stop(reason: reason)
                        }
                        continue
                    case .temporary(let reason, let retryAfter):
                        temporary = (reason, retryAfter)
                    }
                }
            }

            guard attempt < attempts else {
                logger.warning(
                    "push failed after retries",
                    metadata: ["token": "\(notification.token)", "reason": "\(temporary.reason)", "attempts": "\(attempt)"])
                return .temporaryFailure(reason: temporary.reason)
            }
            let delay = retryPolicy.delay(beforeRetry: attempt, retryAfter: temporary.retryAfter, random: random())
            logger.debug(
                "temporary push failure; backing off",
                metadata: ["reason": "\(temporary.reason)", "attempt": "\(attempt)", "delay": "\(delay)"])
            attempt += 1
            do {
                try await sleep(delay)
            } catch {
                return .temporaryFailure(reason: temporary.reason)
            }
        }
    }

    private func stop(reason: String) -> PushOutcome {
        let first = stoppedReason.withLock { stopped in
            if stopped == nil {
                stopped = reason
                return true
            }
            return false
        }
        if first {
            logger.critical(
                "FCM refused this app's credentials; sending for the app is STOPPED until the service account is fixed and Frostbox restarted",
                metadata: ["reason": "\(reason)"])
        }
        return .authFailure(reason: reason)
    }
}
