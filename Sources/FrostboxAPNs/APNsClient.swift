import FrostboxCore
import Logging
import NIOCore
import Synchronization

/// Pushes for one app over HTTP/2: builds and validates the request once, signs it with the
/// shared provider token (or relies on the TLS client certificate), sends it, and turns the
/// answer into a `PushOutcome`. Temporary failures (429, 5xx, resets, lost connections,
/// deadlines) are retried with backoff and the same `apns-id`; a push whose connection was lost
/// under it is retried alone (on a connection that carries nothing else meanwhile), and fails
/// permanently once lost there `lossesAloneBeforeGivingUp` times — it is what makes the gateway
/// drop the connection; requests a server never processed (GOAWAY, REFUSED_STREAM) the
/// transport itself resends at once; an expired provider token is renewed and the push retried
/// once; any other 403 stops all sending for the app.
public final class APNsClient: Sendable {
    /// The app's bundle id, sent as `apns-topic`.
    public let bundleID: String
    private let defaultEnvironment: PushEnvironment
    private let transports: [PushEnvironment: APNsTransport]
    private let payloads: APNsPayloadEncoder
    private let issuer: APNsProviderTokenIssuer?
    private let retryPolicy: APNsRetryPolicy
    private let sleep: @Sendable (Duration) async throws -> Void
    private let random: @Sendable () -> Double
    private let logger: Logger
    private let stoppedReason = Mutex<String?>(nil)

    init(
        app: APNsAppSettings, transports: [PushEnvironment: APNsTransport], payloads: APNsPayloadEncoder,
        issuer: APNsProviderTokenIssuer?,
        retryPolicy: APNsRetryPolicy, sleep: @escaping @Sendable (Duration) async throws -> Void,
        random: @escaping @Sendable () -> Double, logger: Logger
    ) {
        self.bundleID = app.bundleID
        self.defaultEnvironment = app.environment
        self.transports = transports
        self.payloads = payloads
        self.issuer = issuer
        self.retryPolicy = retryPolicy
        self.sleep = sleep
        self.random = random
        var logger = logger
        logger[metadataKey: "apns.topic"] = "\(app.bundleID)"
        self.logger = logger
    }

    /// Why sending for this app stopped (a 403 other than an expired token), or nil.
    public var stopped: String? { stoppedReason.withLock { $0 } }

    /// Sends one push and says what became of it.
    public func send(_ notification: PushNotification) async -> PushOutcome {
        if let reason = stopped {
            return .authFailure(reason: reason)
        }
        let request: APNsRequest
        switch APNsRequest.make(notification, topic: bundleID, payloads: payloads) {
        case .success(let made):
            request = made
        case .failure(let refusal):
            logger.debug("push refused before sending", metadata: ["token": "\(notification.token)", "reason": "\(refusal.reason)"])
            return .permanentFailure(status: refusal.status, reason: refusal.reason)
        }
        let environment = notification.environment ?? defaultEnvironment
        guard let transport = transports[environment] else {
            return .permanentFailure(status: 400, reason: "BadEnvironment")
        }

        var attempt = 1
        var attempts = retryPolicy.maximumAttempts
        var renewedToken = false
        var alone = false
        var lostAlone = 0
        let lossesAloneToGiveUp = max(1, retryPolicy.lossesAloneBeforeGivingUp)
        while true {
            if Task.isCancelled {
                return .temporaryFailure(reason: "cancelled")
            }
            var token: APNsProviderToken?
            if let issuer {
                do {
                    token = try issuer.token()
                } catch {
                    return stop(reason: "CannotSignProviderToken")
                }
            }

            let temporaryReason: String
            switch await transport.post(path: request.path, fields: request.fields, authorization: token?.bearer, body: request.body, alone: alone) {
            case .response(let status, let messageID, let body):
                switch APNsVerdict.judge(status: status, messageID: messageID, body: body, sentID: notification.messageID) {
                case .final(.authFailure(let reason)):
                    return stop(reason: reason)
                case .final(let outcome):
                    return outcome
                case .expiredProviderToken:
                    guard let issuer, let token, !renewedToken else {
                        return .temporaryFailure(reason: "ExpiredProviderToken")
                    }
                    renewedToken = true
                    do {
                        let renewed = try issuer.renew(rejected: token)
                        logger.notice(
                            "APNs said the provider token expired; retrying once",
                            metadata: ["renewed": "\(renewed != token)", "iat": "\(renewed.issuedAt)"])
                    } catch {
                        return stop(reason: "CannotSignProviderToken")
                    }
                    continue
                case .temporary(let reason):
                    temporaryReason = reason
                }
            case .unprocessed(let reason), .failed(let reason):
                temporaryReason = reason
            case .lost(let reason):
                if alone { lostAlone += 1 }
                if lostAlone >= lossesAloneToGiveUp {
                    logger.warning(
                        "push given up: the gateway dropped the connection each time it was sent alone",
                        metadata: ["token": "\(notification.token)", "losses": "\(lostAlone)"])
                    return .permanentFailure(status: 0, reason: "ConnectionLostWhenSentAlone")
                }
                if !alone {
                    // Enough attempts left to be lost alone that often: a push that kills the
                    // connection ends known as such, not retried run after run.
                    attempts = max(attempts, attempt + lossesAloneToGiveUp)
                    alone = true
                }
                temporaryReason = reason
            }

            guard attempt < attempts else {
                logger.warning(
                    "push failed after retries",
                    metadata: ["token": "\(notification.token)", "reason": "\(temporaryReason)", "attempts": "\(attempt)"])
                return .temporaryFailure(reason: temporaryReason)
            }
            let delay = retryPolicy.backoff(beforeRetry: attempt, random: random())
            logger.debug(
                "temporary push failure; backing off",
                metadata: ["reason": "\(temporaryReason)", "attempt": "\(attempt)", "delay": "\(delay)"])
            attempt += 1
            do {
                try await sleep(delay)
            } catch {
                return .temporaryFailure(reason: temporaryReason)
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
                "APNs refused this app's credentials; sending for the app is STOPPED until the credentials are fixed and Frostbox restarted",
                metadata: ["reason": "\(reason)"])
        }
        return .authFailure(reason: reason)
    }
}
