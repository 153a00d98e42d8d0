import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdHTTP2
import Logging
import MockAPNs
import NIOCore
import NIOSSL
import ServiceLifecycle
import Synchronization

/// A local stand-in for FCM over HTTP/2 + TLS (self-signed certificate made at start): the
/// OAuth2 token endpoint (`POST /token`, checking the RS256 assertion and its claims) and
/// `POST /v1/projects/{project}/messages:send` (checking the access token and the v1 schema),
/// Google's error bodies, faults chosen by token prefix (`MockFCMTokenFault`), and a record of
/// what it accepted. Admin: `POST /admin/expire-tokens` makes every access token issued so far
/// expire.
public final class MockFCMServer: Sendable {
    /// The configuration it runs with.
    public let configuration: MockFCMSettings
    /// PEM file of the self-signed certificate; clients trust it for 127.0.0.1, ::1 and localhost.
    public let certificatePath: String
    private let directory: String
    private let ownsDirectory: Bool
    private let tls: TLSConfiguration
    let state: MockFCMState
    private let accounts: Mutex<[String: MockFCMSettings.KnownAccount]>
    private let released = Mutex(false)
    private let logger: Logger

    public init(_ configuration: MockFCMSettings, logger: Logger = Logger(label: "mock-fcm")) throws {
        self.configuration = configuration
        ownsDirectory = configuration.certificateDirectory == nil
        directory =
            configuration.certificateDirectory
            ?? FileManager.default.temporaryDirectory.appendingPathComponent("mock-fcm-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let issued = try MockAPNsCertificates.makeServerCertificate()
        certificatePath = directory + "/mock-fcm.crt"
        try issued.certificatePEM.write(toFile: certificatePath, atomically: true, encoding: .utf8)
        tls = TLSConfiguration.makeServerConfiguration(
            certificateChain: try NIOSSLCertificate.fromPEMBytes(Array(issued.certificatePEM.utf8)).map { .certificate($0) },
            privateKey: .privateKey(try NIOSSLPrivateKey(bytes: Array(issued.privateKeyPEM.utf8), format: .pem)))
        state = try MockFCMState(keepDeliveries: configuration.keepDeliveries, deliveriesPath: configuration.deliveriesPath)
        accounts = Mutex(configuration.accounts)
        self.logger = logger
    }

    /// Lets the token endpoint accept assertions of another account.
    public func addAccount(clientEmail: String, _ account: MockFCMSettings.KnownAccount) {
        accounts.withLock { $0[clientEmail] = account }
    }

    /// A fresh test service account known to this double, its key file written (0600) into the
    /// double's directory; `port` is the bound port (its `token_uri` points here).
    public func makeServiceAccount(
        port: Int, projectID: String = "mock-project", name: String = "frostbox"
    ) throws -> (
        account: MockFCMServiceAccount, path: String
    ) {
        let account = try MockFCMServiceAccount(
            clientEmail: "\(name)@\(projectID).iam.gserviceaccount.com", projectID: projectID, tokenURI: Self.tokenURI(host: configuration.host, port: port))
        addAccount(clientEmail: account.clientEmail, account.known)
        let path = try account.write(to: directory + "/\(name)-\(projectID).json")
        return (account, path)
    }

    /// The token endpoint of a double on `host:port`.
    public static func tokenURI(host: String, port: Int) -> String { "https://\(host):\(port)/token" }

    /// The accepted messages so far, in answer order.
    public func deliveries() -> [MockFCMDelivery] { state.snapshot().1 }

    /// Counters so far.
    public func counters() -> MockFCMCounters { state.snapshot().0 }

    /// Makes every access token issued so far expire (the next send with one gets 401).
    public func expireAccessTokens() { state.expireTokens(now: configuration.clock()) }

    /// Lets go of held (`HANG`) requests, which then answer 503.
    public func releaseHangs() { released.withLock { $0 = true } }

    /// The Hummingbird application serving the double; `onRunning` gets the bound port.
    public func makeApplication(onRunning: @escaping @Sendable (Int) async -> Void = { _ in }) throws -> some ApplicationProtocol {
        let router = Router(context: MockFCMContext.self)
        router.post("/token") { request, context in try await self.token(request: request, context: context) }
        router.post("/v1/projects/{project}/{method}") { request, context in try await self.send(request: request, context: context) }
        router.post("/admin/expire-tokens") { _, _ in
            self.expireAccessTokens()
            return Response(status: .noContent)
        }
        router.get("/admin/counters") { _, _ in
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            let body = try encoder.encode(self.counters())
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(bytes: body)))
        }
        return Application(
            router: router, server: try .http2Upgrade(tlsConfiguration: tls),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "mock-fcm"),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? 0) }, logger: logger)
    }

    /// Runs the double on its port for the duration of `body`, which gets the bound port.
    public func withRunning<T: Sendable>(_ body: @Sendable (Int) async throws -> T) async throws -> T {
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let app = try makeApplication(onRunning: { port in continuation.yield(port) })
        // Stopped by a graceful shutdown, never by cancelling the serving task (see MockOpenMeteo).
        let services = ServiceGroup(configuration: .init(services: [app], gracefulShutdownSignals: [], logger: logger))
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
            releaseHangs()
            await services.triggerGracefulShutdown()
            try await group.waitForAll()
            if ownsDirectory { try? FileManager.default.removeItem(atPath: directory) }
            return try result.get()
        }
    }

    // MARK: Token endpoint

    func token(request: Request, context: MockFCMContext) async throws -> Response {
        state.tokenRequested()
        let body = try await request.body.collect(upTo: 64 * 1024)
        let form = Self.parseForm(String(buffer: body))
        guard form["grant_type"] == "urn:ietf:params:oauth:grant-type:jwt-bearer", let assertion = form["assertion"] else {
            return Self.json(status: 400, #"{"error":"unsupported_grant_type","error_description":"Invalid grant_type."}"#)
        }
        let audience = "https://" + (request.head.authority ?? "") + "/token"
        let verifier = MockFCMAssertionVerifier(accounts: accounts.withLock { $0 }, clock: configuration.clock)
        switch verifier.verify(assertion, audience: audience) {
        case .failure(let refusal):
            state.rejected("invalid_grant")
            return Self.json(status: 400, #"{"error":"invalid_grant","error_description":"# + Self.quote(refusal.description) + "}")
        case .success(let account):
            let lifetime = configuration.accessTokenLifetime
            let token = state.issueToken(account: account, expiresAt: configuration.clock() + lifetime)
            return Self.json(status: 200, #"{"access_token":"\#(token)","expires_in":\#(lifetime),"token_type":"Bearer"}"#)
        }
    }

    // MARK: messages:send

    func send(request: Request, context: MockFCMContext) async throws -> Response {
        let project = context.parameters.get("project") ?? ""
        guard context.parameters.get("method") == "messages:send" else {
            return error(404, "NOT_FOUND", "Method not found.")
        }
        let body = try await request.body.collect(upTo: 1 << 20)
        let bytes = Data(buffer: body)
        let accepted = MockFCMValidator.validate(bytes)
        let alertID = (try? accepted.get())?.data["alert_id"]
        state.sendStarted(connection: context.connection, alertID: alertID)
        defer { state.sendEnded() }
        if configuration.latency > .zero { try? await Task.sleep(for: configuration.latency) }

        var account: String?
        if configuration.requireAuthentication {
            let authorization = request.headers[.authorization] ?? ""
            guard authorization.hasPrefix("Bearer "),
                let owner = state.account(ofToken: String(authorization.dropFirst(7)), now: configuration.clock())
            else {
                return error(
                    401, "UNAUTHENTICATED",
                    "Request had invalid authentication credentials. Expected OAuth 2 access token, login cookie or other valid authentication credential.")
            }
            guard accounts.withLock({ $0[owner]?.projectID }) == project else {
                return error(
                    403, "PERMISSION_DENIED",
                    "Permission 'cloudmessaging.messages.create' denied on resource '//cloudresourcemanager.googleapis.com/projects/\(project)'.")
            }
            account = owner
        }
        let message: MockFCMValidator.Accepted
        switch accepted {
        case .failure(let refusal):
            return error(400, "INVALID_ARGUMENT", refusal.message, field: refusal.field)
        case .success(let valid):
            message = valid
        }
        if MockFCMTokenFault.of(token: message.token) == .connectionDrop {
            state.rejected("ConnectionDropped")
            // Closed before this handler returns: the answer below is never written.
            try? await context.connectionChannel.close()
            return Response(status: .serviceUnavailable)
        }
        if let fault = MockFCMTokenFault.of(token: message.token), let answer = await answer(fault, alertID: alertID ?? message.token) {
            return answer
        }
        let delivery = state.delivered { number in
            MockFCMDelivery(
                name: "projects/\(project)/messages/0:\(number)%mock", project: project, token: message.token, alertID: alertID,
                collapseKey: message.collapseKey, ttl: message.ttl, priority: message.priority, body: String(decoding: bytes, as: UTF8.self),
                account: account)
        }
        return Self.json(status: 200, #"{"name":"# + Self.quote(delivery.name) + "}")
    }

    /// The answer a token fault asks for; nil lets the message through (once-only faults).
    private func answer(_ fault: MockFCMTokenFault, alertID: String) async -> Response? {
        switch fault {
        case .unregistered:
            return error(404, "NOT_FOUND", "Requested entity was not found.", errorCode: "UNREGISTERED")
        case .invalidToken:
            return error(400, "INVALID_ARGUMENT", "The registration token is not a valid FCM registration token", errorCode: "INVALID_ARGUMENT")
        case .senderIDMismatch:
            return error(403, "PERMISSION_DENIED", "SenderId mismatch", errorCode: "SENDER_ID_MISMATCH")
        case .quotaExceeded:
            return quota()
        case .quotaOnce:
            return state.firstTime("quota " + alertID) ? quota() : nil
        case .unavailable:
            return error(503, "UNAVAILABLE", "The service is currently unavailable.", errorCode: "UNAVAILABLE")
        case .flaky:
            return state.firstTime("flaky " + alertID) ? error(503, "UNAVAILABLE", "The service is currently unavailable.", errorCode: "UNAVAILABLE") : nil
        case .internalError:
            return error(500, "INTERNAL", "Internal error encountered.", errorCode: "INTERNAL")
        case .unauthenticated:
            return error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials.")
        case .connectionDrop:
            return nil
        case .hang:
            let start = ContinuousClock.now
            while !released.withLock({ $0 }), ContinuousClock.now - start < configuration.hangLimit {
                try? await Task.sleep(for: .milliseconds(20))
            }
            return error(503, "UNAVAILABLE", "The service is currently unavailable.", errorCode: "UNAVAILABLE")
        }
    }

    private func quota() -> Response {
        var response = error(429, "RESOURCE_EXHAUSTED", "Quota exceeded.", errorCode: "QUOTA_EXCEEDED")
        response.headers[.retryAfter] = String(configuration.retryAfterSeconds)
        return response
    }

    /// Google's error envelope, with an FcmError detail or a BadRequest field violation.
    private func error(_ status: Int, _ code: String, _ message: String, errorCode: String? = nil, field: String? = nil) -> Response {
        state.rejected(errorCode ?? code)
        var details = ""
        if let errorCode {
            details = #","details":[{"@type":"type.googleapis.com/google.firebase.fcm.v1.FcmError","errorCode":"\#(errorCode)"}]"#
        } else if let field {
            details =
                #","details":[{"@type":"type.googleapis.com/google.rpc.BadRequest","fieldViolations":[{"field":"# + Self.quote(field)
                + #","description":"# + Self.quote(message) + "}]}]"
        }
        return Self.json(
            status: status, #"{"error":{"code":\#(status),"message":"# + Self.quote(message) + #","status":"\#(code)""# + details + "}}")
    }

    static func json(status: Int, _ text: String) -> Response {
        Response(
            status: .init(code: status), headers: [.contentType: "application/json; charset=UTF-8"],
            body: .init(byteBuffer: ByteBuffer(string: text)))
    }

    static func quote(_ text: String) -> String {
        (try? String(decoding: JSONSerialization.data(withJSONObject: text, options: [.fragmentsAllowed, .withoutEscapingSlashes]), as: UTF8.self)) ?? "\"\""
    }

    static func parseForm(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? "" }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return fields
    }
}

/// The request context: which connection (HTTP/2 parent channel) a request came on.
public struct MockFCMContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    let connection: ObjectIdentifier?
    /// The TCP connection the request came on (the parent of an HTTP/2 stream's channel).
    let connectionChannel: any Channel

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        connectionChannel = source.channel.parent ?? source.channel
        connection = ObjectIdentifier(connectionChannel)
    }
}
