import FrostboxCore
import Logging
import NIOCore
import Synchronization

/// Pushes for one app of one platform: the delivery policy every platform shares. A batch's
/// first attempts go to their gateways in one hand-over per event loop and are judged where
/// they are answered; a push that needs more goes on in a task of its own. Temporary failures
/// (429, 5xx, resets, lost connections, deadlines, an unreachable token endpoint) are retried
/// with backoff — at least the server's `Retry-After`, capped — and the same bytes; requests a
/// server never processed (GOAWAY, REFUSED_STREAM) the transport resends at once; a push whose
/// connection was lost under it is retried alone (on a connection that carries nothing else
/// meanwhile), and fails permanently once lost there `lossesAloneBeforeGivingUp` times — it
/// is what makes the gateway drop the connection; a refused credential is renewed and the push
/// sent again once; credentials refused for good stop all sending for the app. With a pacer,
/// every attempt first takes its message from the app's budget, and an answer with
/// `Retry-After` pauses the app.
package final class PushClient<Platform: PushPlatform>: Sendable {
    package let platform: Platform
    /// Keeps the app within its quota; nil: unpaced.
    package let pacer: PushPacer?
    private let retryPolicy: PushRetryPolicy
    private let sleep: @Sendable (Duration) async throws -> Void
    private let random: @Sendable () -> Double
    private let logger: Logger
    private let stoppedReason = Mutex<String?>(nil)

    package init(
        platform: Platform, pacer: PushPacer? = nil, retryPolicy: PushRetryPolicy,
        sleep: @escaping @Sendable (Duration) async throws -> Void, random: @escaping @Sendable () -> Double, logger: Logger
    ) {
        self.platform = platform
        self.pacer = pacer
        self.retryPolicy = retryPolicy
        self.sleep = sleep
        self.random = random
        var logger = logger
        logger[metadataKey: platform.logMetadata.key] = "\(platform.logMetadata.value)"
        self.logger = logger
    }

    /// Why sending for this app stopped (its credentials were refused), or nil.
    package var stopped: String? { stoppedReason.withLock { $0 } }

    /// Sends a batch: every push's first attempt goes to its gateway in one hand-over, and the
    /// answers are judged on the event loops as they come (`yieldAll` is called there with the
    /// final ones); a push that needs another attempt goes on as `send(_:)` would, in a task of
    /// its own. Returns when every push has its outcome. Cancelled: nothing new starts —
    /// unanswered requests are withdrawn, nothing is retried — and every push still gets its outcome.
    package func send(
        _ pushes: [(index: Int, notification: PushNotification)], yieldAll: @escaping @Sendable ([(index: Int, outcome: PushOutcome)]) -> Void
    ) async {
        if let reason = stopped {
            yieldAll(pushes.map { ($0.index, .authFailure(reason: reason)) })
            return
        }
        let credential: Platform.Credential?
        var unavailable: String?
        switch await platform.credential() {
        case .ready(let ready):
            credential = ready
        case .refused(let reason):
            let outcome = stop(reason: reason)
            yieldAll(pushes.map { ($0.index, outcome) })
            return
        case .unavailable(let reason):
            credential = nil
            unavailable = reason
        }
        // The pushes to send, by gateway.
        var sends: [ObjectIdentifier: (gateway: HTTP2Gateway, items: [Prepared])] = [:]
        var refused: [(index: Int, outcome: PushOutcome)] = []
        for (index, notification) in pushes {
            switch platform.prepare(notification) {
            case .failure(let refusal):
                refused.append((index, refusal.outcome))
            case .success(let request):
                sends[ObjectIdentifier(request.gateway), default: (request.gateway, [])].items.append(
                    Prepared(index: index, notification: notification, request: request))
            }
        }
        yieldAll(refused)
        let total = sends.values.reduce(0) { $0 + $1.items.count }
        guard total > 0 else { return }
        let progress = PushBatchProgress(count: total, yieldAll: yieldAll)
        if let unavailable {
            // No credential to send with: every push starts as a temporary failure, backing off.
            for items in sends.values.map(\.items) {
                for item in items {
                    progress.retry(item.index) { await self.deliver(item.notification, item.request, first: (.failed(unavailable), nil)) }
                }
            }
            await waitOrCancel(progress, tickets: [])
            return
        }

        // First attempts: judged where they are answered; the others go on in tasks of their own.
        // Paced, they go in slices as the budget lets them.
        let authorization = platform.authorization(credential)
        var tickets: [(HTTP2Gateway, HTTP2Gateway.Ticket)] = []
        for (gateway, items) in sends.values {
            var start = 0
            while start < items.count {
                let count = await pacer?.acquire(items.count - start) ?? (items.count - start)
                guard count > 0 else {
                    // Cancelled while waiting for the budget: the rest is not sent.
                    progress.finish(items[start...].map { ($0.index, .temporaryFailure(reason: "cancelled")) })
                    break
                }
                let slice = Array(items[start..<(start + count)])
                start += count
                tickets.append((gateway, handOver(slice, to: gateway, authorization: authorization, credential: credential, progress: progress)))
            }
        }
        await waitOrCancel(progress, tickets: tickets)
    }

    /// Sends the first attempts of `items` in one hand-over; each answer is judged where it
    /// arrives, and a push that needs more goes on in a task of its own.
    private func handOver(
        _ items: [Prepared], to gateway: HTTP2Gateway, authorization: String?, credential: Platform.Credential?, progress: PushBatchProgress
    ) -> HTTP2Gateway.Ticket {
        let outgoing = items.map { HTTP2Outgoing(path: $0.request.path, fields: $0.request.fields, authorization: authorization, body: $0.request.body) }
        return gateway.send(outgoing) { [self] answers in
            var final: [(index: Int, outcome: PushOutcome)] = []
            final.reserveCapacity(answers.count)
            for (position, exchange) in answers {
                let item = items[position]
                if let outcome = finalOutcome(of: exchange, for: item.notification) {
                    final.append((item.index, outcome))
                } else {
                    progress.retry(item.index) {
                        await self.deliver(item.notification, item.request, first: (exchange, credential))
                    }
                }
            }
            progress.finish(final)
        }
    }

    private func waitOrCancel(_ progress: PushBatchProgress, tickets: [(HTTP2Gateway, HTTP2Gateway.Ticket)]) async {
        await withTaskCancellationHandler {
            await progress.waitForAll()
        } onCancel: {
            progress.cancel()
            for (gateway, ticket) in tickets { gateway.cancel(ticket) }
        }
    }

    private struct Prepared: Sendable {
        let index: Int
        let notification: PushNotification
        let request: PushRequest
    }

    /// The outcome of a first attempt's exchange when it is final (no retry, no renewal).
    private func finalOutcome(of exchange: HTTP2Exchange, for notification: PushNotification) -> PushOutcome? {
        guard case .response(let status, let header, let body) = exchange else { return nil }
        switch platform.judge(status: status, header: header, body: body, for: notification) {
        case .final(.authFailure(let reason)): return stop(reason: reason)
        case .final(let outcome): return outcome
        case .renewCredential, .temporary: return nil
        }
    }

    /// Attempts until an outcome is final or the retries are used up. `first`: the answer to
    /// a first attempt already made (with the credential it carried).
    private func deliver(
        _ notification: PushNotification, _ request: PushRequest, first: (exchange: HTTP2Exchange, credential: Platform.Credential?)?
    ) async -> PushOutcome {
        var attempt = 1
        var attempts = retryPolicy.maximumAttempts
        var renewed = false
        var alone = false
        var lostAlone = 0
        var answered = first
        let lossesAloneToGiveUp = max(1, retryPolicy.lossesAloneBeforeGivingUp)
        while true {
            if let reason = stopped { return .authFailure(reason: reason) }
            let credential: Platform.Credential?
            let exchange: HTTP2Exchange
            if let made = answered {
                answered = nil
                credential = made.credential
                exchange = made.exchange
            } else {
                if Task.isCancelled { return .temporaryFailure(reason: "cancelled") }
                switch await platform.credential() {
                case .refused(let reason):
                    return stop(reason: reason)
                case .unavailable(let reason):
                    credential = nil
                    exchange = .failed(reason)
                case .ready(let ready):
                    credential = ready
                    if let pacer, await pacer.acquire(1) == 0 { return .temporaryFailure(reason: "cancelled") }
                    exchange = await request.gateway.post(
                        path: request.path, fields: request.fields, authorization: platform.authorization(ready), body: request.body,
                        alone: alone)
                }
            }

            let temporary: (reason: String, retryAfter: Duration?)
            switch exchange {
            case .response(let status, let header, let body):
                switch platform.judge(status: status, header: header, body: body, for: notification) {
                case .final(.authFailure(let reason)):
                    return stop(reason: reason)
                case .final(let outcome):
                    return outcome
                case .renewCredential(let reason, let otherwise):
                    guard !renewed, let credential else {
                        if case .authFailure(let reason) = otherwise { return stop(reason: reason) }
                        return otherwise
                    }
                    renewed = true
                    let renewal = await platform.renew(rejected: credential)
                    if case .refused(let reason) = renewal { return stop(reason: reason) }
                    var fresh = false
                    if case .ready(let new) = renewal { fresh = new != credential }
                    logger.notice(
                        "\(platform.name) refused the credential; sending again once", metadata: ["reason": "\(reason)", "renewed": "\(fresh)"])
                    continue
                case .temporary(let reason, let retryAfter):
                    // The server asked to wait (429 QUOTA_EXCEEDED, 503): the whole app waits.
                    if let retryAfter, let pacer { pacer.pause(for: min(retryAfter, retryPolicy.maximumRetryAfter)) }
                    temporary = (reason, retryAfter)
                }
            case .unprocessed(let reason), .failed(let reason):
                temporary = (reason, nil)
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
                temporary = (reason, nil)
            }

            guard attempt < attempts else {
                logger.warning(
                    "push failed after retries",
                    metadata: ["token": "\(notification.token)", "reason": "\(temporary.reason)", "attempts": "\(attempt)"])
                return .temporaryFailure(reason: temporary.reason)
            }
            let delay = retryPolicy.delay(beforeRetry: attempt, retryAfter: temporary.retryAfter, random: random())
            logger.debug(
                "temporary push failure; backing off", metadata: ["reason": "\(temporary.reason)", "attempt": "\(attempt)", "delay": "\(delay)"])
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
            guard stopped == nil else { return false }
            stopped = reason
            return true
        }
        if first {
            logger.critical(
                "\(platform.name) refused this app's credentials; sending for the app is STOPPED until \(platform.credentialsHint) and Frostbox restarted",
                metadata: ["reason": "\(reason)"])
        }
        return .authFailure(reason: reason)
    }
}
