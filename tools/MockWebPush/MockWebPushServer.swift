import Crypto
import Foundation
import FrostboxCore
import HTTPTypes
import Hummingbird
import HummingbirdHTTP2
import Logging
import MockAPNs
import NIOCore
import NIOSSL
import ServiceLifecycle
import Synchronization

/// A local stand-in for a browser's push service (RFC 8030) over HTTP/2 + TLS, with a
/// self-signed certificate made at start. It makes subscriptions as a browser would (a P-256
/// key pair and an auth secret each, kept here to decrypt), and for `POST /push/{id}` checks the
/// VAPID authorization (RFC 8292: ES256 over `k`, `aud` this origin, `exp` within 24 h, `sub`),
/// the RFC 8030 headers, and decrypts the body (RFC 8291). Faults are chosen per subscription.
public final class MockWebPushServer: Sendable {
    /// What a subscription's pushes are answered.
    public enum Fault: String, Sendable {
        /// 410: the subscription is gone.
        case gone
        /// 404: no such subscription.
        case notFound
        /// 413: the payload is too large.
        case tooLarge
        /// 429 with `Retry-After: 1` the first time each message is pushed, then accepted.
        case busyOnce
        /// 500 every time.
        case serverError
    }

    /// One accepted push, decrypted.
    public struct Delivery: Sendable {
        public let subscription: String
        public let plaintext: [UInt8]
        public let ttl: Int
        public let urgency: String?
        public let topic: String?
        /// The VAPID public key that signed it.
        public let vapidKey: String
    }

    /// PEM file of the self-signed certificate (for 127.0.0.1, ::1 and localhost).
    public let certificatePath: String
    private let directory: String
    private let tls: TLSConfiguration
    private let host: String
    private let clock: @Sendable () -> Int64
    private let maximumTTL: Int
    private let state = Mutex(State())
    private let logger: Logger

    struct State {
        var subscriptions: [String: (key: P256.KeyAgreement.PrivateKey, auth: [UInt8], fault: Fault?)] = [:]
        var deliveries: [Delivery] = []
        var refusals: [String] = []
        var seen: Set<String> = []
        /// VAPID keys refused with 401 (base64url).
        var refusedKeys: Set<String> = []
    }

    public init(
        host: String = "127.0.0.1", clock: @escaping @Sendable () -> Int64 = { Int64(Date().timeIntervalSince1970) },
        maximumTTL: Int = 28 * 86_400, logger: Logger = Logger(label: "mock-web-push")
    ) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("mock-web-push-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let issued = try MockAPNsCertificates.makeServerCertificate()
        certificatePath = directory + "/mock-web-push.crt"
        try issued.certificatePEM.write(toFile: certificatePath, atomically: true, encoding: .utf8)
        tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMBytes(Array(issued.certificatePEM.utf8)).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(issued.privateKeyPEM.utf8), format: .pem)))
        self.host = host
        self.clock = clock
        self.maximumTTL = maximumTTL
        self.logger = logger
    }

    /// A new browser subscription on this push service at `port`, as `PushSubscription.toJSON()` has it.
    public func makeSubscription(port: Int, fault: Fault? = nil) -> (endpoint: String, p256dh: String, auth: String) {
        let key = P256.KeyAgreement.PrivateKey()
        let auth = (0..<16).map { _ in UInt8.random(in: 0...255) }
        let id = (fault.map { $0.rawValue + "-" } ?? "") + UUID().uuidString.lowercased()
        state.withLock { $0.subscriptions[id] = (key, auth, fault) }
        return ("https://\(host):\(port)/push/\(id)", Base64URL.encode(key.publicKey.x963Representation), Base64URL.encode(auth))
    }

    /// Answers 401 to pushes signed by this VAPID public key (base64url), as for a key the service refuses.
    public func refuse(vapidKey: String) { state.withLock { _ = $0.refusedKeys.insert(vapidKey) } }

    /// The accepted pushes so far, in answer order.
    public var deliveries: [Delivery] { state.withLock { $0.deliveries } }

    /// Why requests were refused, in order (a status and a reason each).
    public var refusals: [String] { state.withLock { $0.refusals } }

    /// Runs the double for the duration of `body`, which gets the bound port.
    public func withRunning<T: Sendable>(_ body: @Sendable (Int) async throws -> T) async throws -> T {
        let router = Router(context: BasicRequestContext.self)
        router.post("/push/{id}") { request, context in try await self.push(request, id: context.parameters.get("id") ?? "") }
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = Application(
            router: router, server: try .http2Upgrade(tlsConfiguration: tls),
            configuration: .init(address: .hostname(host, port: 0), serverName: "mock-web-push"),
            onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) }, logger: logger)
        let services = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
        defer { try? FileManager.default.removeItem(atPath: directory) }
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await services.run() }
            var iterator = ports.makeAsyncIterator()
            guard let port = await iterator.next() else {
                await services.triggerGracefulShutdown()
                throw CancellationError()
            }
            let result: Result<T, any Error>
            do {
                result = .success(try await body(port))
            } catch {
                result = .failure(error)
            }
            await services.triggerGracefulShutdown()
            try await group.waitForAll()
            return try result.get()
        }
    }

    func push(_ request: Request, id: String) async throws -> Response {
        let body = Array(Data(buffer: try await request.body.collect(upTo: 8 * 1024)))
        guard let subscription = state.withLock({ $0.subscriptions[id] }) else { return refuse(404, "no such subscription") }
        let origin = "https://" + (request.head.authority ?? "")
        let vapidKey: String
        switch MockWebPushVAPID.verify(request.headers[.authorization], audience: origin, now: clock()) {
        case .failure(let reason): return refuse(401, reason.description)
        case .success(let key): vapidKey = key
        }
        if state.withLock({ $0.refusedKeys.contains(vapidKey) }) { return refuse(401, "VAPID key not accepted") }
        guard request.headers[HTTPField.Name("Content-Encoding")!] == "aes128gcm" else { return refuse(400, "Content-Encoding must be aes128gcm") }
        guard let ttlText = request.headers[HTTPField.Name("TTL")!], let ttl = Int(ttlText), ttl >= 0 else { return refuse(400, "TTL missing or invalid") }
        let urgency = request.headers[HTTPField.Name("Urgency")!]
        if let urgency, !["very-low", "low", "normal", "high"].contains(urgency) { return refuse(400, "Urgency \(urgency) invalid") }
        let topic = request.headers[HTTPField.Name("Topic")!]
        if let topic, topic.utf8.count > 32 || Base64URL.decode(topic) == nil { return refuse(400, "Topic must be at most 32 base64url characters") }
        guard body.count <= 4096 else { return refuse(413, "payload over 4096 bytes") }
        let plaintext: [UInt8]
        do {
            plaintext = try MockWebPushDecryption.decrypt(body, receiver: subscription.key, auth: subscription.auth)
        } catch {
            return refuse(400, "cannot decrypt: \(error)")
        }
        switch subscription.fault {
        case .gone: return refuse(410, "push subscription has unsubscribed or expired")
        case .notFound: return refuse(404, "push subscription not found")
        case .tooLarge: return refuse(413, "payload too large")
        case .serverError: return refuse(500, "internal error")
        case .busyOnce:
            if state.withLock({ $0.seen.insert(id + String(decoding: plaintext, as: UTF8.self)).inserted }) {
                var response = refuse(429, "too many requests")
                response.headers[.retryAfter] = "1"
                return response
            }
        case nil: break
        }
        state.withLock {
            $0.deliveries.append(Delivery(subscription: id, plaintext: plaintext, ttl: ttl, urgency: urgency, topic: topic, vapidKey: vapidKey))
        }
        // RFC 8030 §5.2: the TTL the service keeps the push for, at most its own limit.
        return Response(
            status: .created, headers: [.location: "/message/\(UUID().uuidString.lowercased())", HTTPField.Name("TTL")!: String(min(ttl, maximumTTL))])
    }

    private func refuse(_ status: Int, _ reason: String) -> Response {
        state.withLock { $0.refusals.append("\(status) \(reason)") }
        return Response(status: .init(code: status), headers: [.contentType: "text/plain"], body: .init(byteBuffer: ByteBuffer(string: reason)))
    }
}
