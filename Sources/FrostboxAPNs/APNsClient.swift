import FrostboxCore
import FrostboxPushEngine
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
    private let gateways: [PushEnvironment: HTTP2Gateway]
    private let payloads: APNsPayloadEncoder
    private let issuer: APNsProviderTokenIssuer?
    private let retryPolicy: APNsRetryPolicy
    private let sleep: @Sendable (Duration) async throws -> Void
    private let random: @Sendable () -> Double
    private let logger: Logger
    private let stoppedReason = Mutex<String?>(nil)

    init(
        app: APNsAppSettings, gateways: [PushEnvironment: HTTP2Gateway], payloads: APNsPayloadEncoder,
        issuer: APNsProviderTokenIssuer?,
        retryPolicy: APNsRetryPolicy, sleep: @escaping @Sendable (Duration) async throws -> Void,
        random: @escaping @Sendable () -> Double, logger: Logger
    ) {
        self.bundleID = app.bundleID
        self.defaultEnvironment = app.environment
        self.gateways = gateways
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
        switch prepare(notification) {
        case .failure(let refusal):
            return refusal.outcome
        case .success(let (request, gateway)):
            return await deliver(notification, request, through: gateway, first: nil)
        }
    }

    /// Sends a batch: every push's first attempt goes to its gateway in one hand-over, and the
    /// answers are judged on the event loops as they come (`yield` is called there for each
    /// final one); a push that needs another attempt (a temporary failure, a lost connection,
    /// an expired provider token) goes on as `send(_:)` would, in a task of its own. Returns
    /// when every push has its outcome. Cancelled: nothing new starts — unanswered requests
    /// are withdrawn as a cancelled `post` would be, nothing is retried — and every push still
    /// gets its outcome.
    func send(
        _ pushes: [(index: Int, notification: PushNotification)], yieldAll: @escaping @Sendable ([(index: Int, outcome: PushOutcome)]) -> Void
    ) async {
        if let reason = stopped {
            yieldAll(pushes.map { ($0.index, .authFailure(reason: reason)) })
            return
        }
        let token: APNsProviderToken?
        do {
            token = try issuer?.token()
        } catch {
            let outcome = stop(reason: "CannotSignProviderToken")
            yieldAll(pushes.map { ($0.index, outcome) })
            return
        }
        // The pushes to send, by gateway (one per environment in use).
        var sends: [ObjectIdentifier: (gateway: HTTP2Gateway, items: [Prepared])] = [:]
        var refused: [(index: Int, outcome: PushOutcome)] = []
        for (index, notification) in pushes {
            switch prepare(notification) {
            case .failure(let refusal):
                refused.append((index, refusal.outcome))
            case .success(let (request, gateway)):
                sends[ObjectIdentifier(gateway), default: (gateway, [])].items.append(Prepared(index: index, notification: notification, request: request))
            }
        }
        yieldAll(refused)
        let total = sends.values.reduce(0) { $0 + $1.items.count }
        guard total > 0 else { return }

        // First attempts: judged where they are answered; the others go on in tasks of their own.
        let progress = PushBatchProgress(count: total, yieldAll: yieldAll)
        var tickets: [(HTTP2Gateway, HTTP2Gateway.Ticket)] = []
        for (gateway, items) in sends.values {
            let outgoing = items.map { HTTP2Outgoing(path: $0.request.path, fields: $0.request.fields, authorization: token?.bearer, body: $0.request.body) }
            let ticket = gateway.send(outgoing) { [self] answers in
                var final: [(index: Int, outcome: PushOutcome)] = []
                final.reserveCapacity(answers.count)
                for (position, exchange) in answers {
                    let item = items[position]
                    if let outcome = finalOutcome(of: exchange, for: item.notification) {
                        final.append((item.index, outcome))
                    } else {
                        progress.retry(item.index) {
                            await self.deliver(item.notification, item.request, through: gateway, first: (exchange, token))
                        }
                    }
                }
                progress.finish(final)
            }
            tickets.append((gateway, ticket))
        }
        let sent = tickets
        await withTaskCancellationHandler {
            await progress.waitForAll()
        } onCancel: {
            progress.cancel()
            for (gateway, ticket) in sent { gateway.cancel(ticket) }
        }
    }

    private struct Prepared: Sendable {
        let index: Int
        let notification: PushNotification
        let request: APNsRequest
    }

    private struct Refused: Error {
        let outcome: PushOutcome
    }

    /// The request of a push and the gateway of its environment, or the outcome that refuses it unsent.
    private func prepare(_ notification: PushNotification) -> Result<(APNsRequest, HTTP2Gateway), Refused> {
        let request: APNsRequest
        switch APNsRequest.make(notification, topic: bundleID, payloads: payloads) {
        case .success(let made):
            request = made
        case .failure(let refusal):
            logger.debug("push refused before sending", metadata: ["token": "\(notification.token)", "reason": "\(refusal.reason)"])
            return .failure(Refused(outcome: .permanentFailure(status: refusal.status, reason: refusal.reason)))
        }
        let environment = notification.environment ?? defaultEnvironment
        guard let gateway = gateways[environment] else {
            return .failure(Refused(outcome: .permanentFailure(status: 400, reason: "BadEnvironment")))
        }
        return .success((request, gateway))
    }

    /// The outcome of a first attempt's exchange when it is final (no retry, no renewal).
    private func finalOutcome(of exchange: HTTP2Exchange, for notification: PushNotification) -> PushOutcome? {
        guard case .response(let status, let messageID, let body) = exchange else { return nil }
        switch APNsVerdict.judge(status: status, messageID: messageID, body: body, sentID: notification.messageID) {
        case .final(.authFailure(let reason)):
            return stop(reason: reason)
        case .final(let outcome):
            return outcome
        case .expiredProviderToken, .temporary:
            return nil
        }
    }

    /// Attempts until an outcome is final or the retries are used up. `first`: the answer to
    /// a first attempt already made (with the provider token it carried).
    private func deliver(
        _ notification: PushNotification, _ request: APNsRequest, through gateway: HTTP2Gateway,
        first: (exchange: HTTP2Exchange, token: APNsProviderToken?)?
    ) async -> PushOutcome {
        var attempt = 1
        var attempts = retryPolicy.maximumAttempts
        var renewedToken = false
        var alone = false
        var lostAlone = 0
        var answered = first
        let lossesAloneToGiveUp = max(1, retryPolicy.lossesAloneBeforeGivingUp)
        while true {
            var token: APNsProviderToken?
            let exchange: HTTP2Exchange
            if let made = answered {
                answered = nil
                token = made.token
                exchange = made.exchange
            } else {
                if Task.isCancelled {
                    return .temporaryFailure(reason: "cancelled")
                }
                if let issuer {
                    do {
                        token = try issuer.token()
                    } catch {
                        return stop(reason: "CannotSignProviderToken")
                    }
                }
                exchange = await gateway.post(
                    path: request.path, fields: request.fields, authorization: token?.bearer, body: request.body, alone: alone)
            }

            let temporaryReason: String
            switch exchange {
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
