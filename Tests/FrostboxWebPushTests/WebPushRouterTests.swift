import Foundation
import FrostboxCore
import FrostboxDoubles
import FrostboxPushEngine
import Logging
import MockOpenMeteo
import MockWebPush
import NIOCore
import Synchronization
import Testing

@testable import FrostboxWebPush

#if canImport(Glibc)
    import Glibc
#endif

/// Web Push through the push engine (issue #46), against the loopback push service: every
/// request checked as a push service checks it (VAPID, RFC 8030 headers) and decrypted as a
/// browser decrypts it; the answers' meanings; the guard at each connection.
@Suite("Web Push router")
struct WebPushRouterTests {
    static let now: Int64 = 1_800_000_000
    static let logger = Logger(label: "test")

    struct Subject {
        let server: MockWebPushServer
        let port: Int
        let store: InMemorySubscriptionStore
        let key: VAPIDKey

        /// A browser registered on the double's push service.
        func browser(_ n: UInt8, fault: MockWebPushServer.Fault? = nil) async throws -> DeviceToken {
            let made = server.makeSubscription(port: port, fault: fault)
            var registration = DeviceRegistration(token: DeviceToken.webID(random: Array(repeating: n, count: 16)), platform: .web)
            registration.webPush = try WebPushSubscription(endpoint: made.endpoint, p256dh: made.p256dh, auth: made.auth)
            return try await store.registerWebPush(registration, newID: registration.token, at: WebPushRouterTests.now).token
        }

        func router(
            private: Bool = true, resolver: any WebPushResolver = SystemWebPushResolver(), logger: Logger = WebPushRouterTests.logger
        ) throws -> WebPushRouter {
            let origin = "https://127.0.0.1:\(port)"
            let services = try WebPushServices(allowed: [origin], privateOrigins: `private` ? [origin] : [])
            var retry = PushRetryPolicy()
            retry.maximumAttempts = 3
            return try WebPushRouter(
                apps: [WebPushApp(name: "garden", key: key, subject: try VAPIDSubject("mailto:frost@example.org"))],
                serviceGuard: WebPushServiceGuard(services: services, resolver: resolver, logger: WebPushRouterTests.logger), directory: store,
                settings: WebPushConnectionSettings(trustedCertificatesPath: server.certificatePath), retryPolicy: retry,
                clock: { WebPushRouterTests.now }, sleep: { _ in }, logger: logger)
        }
    }

    func withSubject(maximumTTL: Int = 28 * 86_400, _ body: @Sendable (Subject) async throws -> Void) async throws {
        let server = try MockWebPushServer(clock: { Self.now }, maximumTTL: maximumTTL)
        try await server.withRunning { port in
            try await body(Subject(server: server, port: port, store: InMemorySubscriptionStore(), key: VAPIDKey.generate()))
        }
    }

    static func alert(_ token: DeviceToken, _ n: Int, priority: PushPriority = .immediate) -> PushNotification {
        PushNotification(
            token: token, platform: .web, messageID: String(format: "00000000-0000-4000-8000-%012x", n), collapseID: "frost-\(n)",
            priority: priority, expiration: now + 3_600,
            content: AlertContent(title: "Frost tonight", body: "Home: -3 °C", frost: FrostData(box: "b", night: "2026-11-30", level: "freeze", minimumC: -3)))
    }

    static func outcomes(_ router: WebPushRouter, _ batch: [PushNotification]) async -> [PushOutcome?] {
        await router.send(batch).collect(into: [PushOutcome?](repeating: nil, count: batch.count)) { $0[$1] = $2 }
    }

    @Test("each push reaches its browser: VAPID verified, decrypted to the payload's bytes, TTL from the expiry, urgency by kind, the topic hashed")
    func delivers() async throws {
        try await withSubject { subject in
            var batch: [PushNotification] = []
            for n in 0..<24 { batch.append(Self.alert(try await subject.browser(UInt8(n)), n, priority: n == 0 ? .throttled : .immediate)) }
            let router = try subject.router()
            let outcomes = await Self.outcomes(router, batch)
            await router.shutdown()
            #expect(outcomes.enumerated().allSatisfy { $1 == .delivered(messageID: batch[$0].messageID) }, "\(outcomes)")
            let deliveries = subject.server.deliveries
            #expect(deliveries.count == 24 && subject.server.refusals.isEmpty, "\(subject.server.refusals)")
            for delivery in deliveries {
                let push = try #require(batch.first { WebPushPayload.render($0) == delivery.plaintext }, "a body decrypted to a payload sent")
                #expect(delivery.ttl == 3_600 && delivery.vapidKey == subject.key.publicKeyBase64URL)
                #expect(delivery.urgency == (push.priority == .immediate ? "high" : "normal"))
                #expect(delivery.topic == WebPushPlatform.topic(push.collapseID ?? "") && (delivery.topic?.count ?? 0) <= 32)
            }
        }
    }

    /// Resolves every host to an address nothing listens at, then to the push service's.
    struct DeadFirstResolver: WebPushResolver {
        let dead: Int
        let live: Int
        func addresses(of host: String, port: Int) async throws -> [SocketAddress] {
            [try SocketAddress(ipAddress: "127.0.0.1", port: dead), try SocketAddress(ipAddress: "127.0.0.1", port: live)]
        }
    }

    @Test("a push service whose first address refuses the connection is reached at its next one")
    func nextAddress() async throws {
        try await withSubject { subject in
            let closed = try ClosedPort()
            let router = try subject.router(resolver: DeadFirstResolver(dead: closed.port, live: subject.port))
            let alert = Self.alert(try await subject.browser(1), 1)
            let outcomes = await Self.outcomes(router, [alert])
            await router.shutdown()
            #expect(outcomes == [.delivered(messageID: alert.messageID)])
            #expect(subject.server.deliveries.count == 1)
        }
    }

    @Test("answers: gone and not found prune, too large is permanent, 429 waits and succeeds, 5xx stays temporary after the retries")
    func answers() async throws {
        try await withSubject { subject in
            let faults: [MockWebPushServer.Fault] = [.gone, .notFound, .tooLarge, .busyOnce, .serverError]
            var batch: [PushNotification] = []
            for (n, fault) in faults.enumerated() { batch.append(Self.alert(try await subject.browser(UInt8(n), fault: fault), n)) }
            let router = try subject.router()
            let outcomes = await Self.outcomes(router, batch)
            await router.shutdown()
            guard case .invalidToken(let gone, _)? = outcomes[0], case .invalidToken(let notFound, _)? = outcomes[1] else {
                Issue.record("410 and 404 prune: \(outcomes)")
                return
            }
            #expect(gone.hasPrefix("Gone") && notFound.hasPrefix("NotFound"))
            guard case .permanentFailure(413, let reason)? = outcomes[2] else {
                Issue.record("413: \(outcomes[2].debugDescription)")
                return
            }
            #expect(reason.contains("PayloadTooLarge"))
            #expect(outcomes[3] == .delivered(messageID: batch[3].messageID))
            guard case .temporaryFailure(let serverError)? = outcomes[4] else {
                Issue.record("500: \(outcomes[4].debugDescription)")
                return
            }
            #expect(serverError.contains("500"))
        }
    }

    @Test("a VAPID key the push service refuses (401) stops the app: that push and every later one fail as auth, nothing more is sent")
    func vapidRefused() async throws {
        try await withSubject { subject in
            subject.server.refuse(vapidKey: subject.key.publicKeyBase64URL)
            let router = try subject.router()
            let first = await Self.outcomes(router, [Self.alert(try await subject.browser(1), 1)])
            let refusedBefore = subject.server.refusals.count
            let later = await Self.outcomes(router, [Self.alert(try await subject.browser(2), 2)])
            await router.shutdown()
            guard case .authFailure(let reason)? = first[0], case .authFailure? = later[0] else {
                Issue.record("\(first) \(later)")
                return
            }
            #expect(reason.contains("VAPID"))
            #expect(subject.server.refusals.count == refusedBefore, "a stopped app sends nothing")
        }
    }

    @Test("a browser no longer registered is NotRegistered, unsent; a push service at a private address not configured as private is never connected to")
    func refusedUnsent() async throws {
        try await withSubject { subject in
            let gone = try await subject.browser(1)
            #expect(try await subject.store.deleteDevice(gone))
            let router = try subject.router()
            let outcomes = await Self.outcomes(router, [Self.alert(gone, 1)])
            await router.shutdown()
            #expect(outcomes[0] == .invalidToken(reason: "NotRegistered", unregisteredAtMilliseconds: nil))

            let browser = try await subject.browser(2)
            let guarded = try subject.router(private: false)
            let refused = await Self.outcomes(guarded, [Self.alert(browser, 2)])
            await guarded.shutdown()
            guard case .temporaryFailure? = refused[0] else {
                Issue.record("\(refused)")
                return
            }
            #expect(subject.server.deliveries.isEmpty && subject.server.refusals.isEmpty, "nothing reached the push service")
        }
    }

    @Test("a push service that keeps pushes for less than the TTL asked is read from its answers and logged once, not per push")
    func answeredTTL() async throws {
        for (maximum, cut) in [(60, true), (28 * 86_400, false)] {
            let logs = RecordingLogHandler.Store()
            try await withSubject(maximumTTL: maximum) { subject in
                var batch: [PushNotification] = []
                for n in 0..<5 { batch.append(Self.alert(try await subject.browser(UInt8(n)), n)) }
                let router = try subject.router(logger: logs.logger())
                let outcomes = await Self.outcomes(router, batch)
                await router.shutdown()
                #expect(outcomes.allSatisfy { if case .delivered = $0 { true } else { false } }, "a cut TTL is still delivered: \(outcomes)")
                #expect(subject.server.deliveries.allSatisfy { $0.ttl == 3_600 }, "the TTL asked is the alert's time left")
            }
            let notices = logs.all.filter { $0.message.hasPrefix("push service keeps pushes for less time") }
            #expect(notices.count == (cut ? 1 : 0), "\(maximum): \(notices)")
            if cut { #expect(notices.first?.metadata["ttl-kept"] == "60" && notices.first?.metadata["ttl-asked"] == "3600") }
        }
    }
}
