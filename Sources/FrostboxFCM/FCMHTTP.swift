import AsyncHTTPClient
import Foundation
import FrostboxCore
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// One answer, or why there was none.
enum FCMHTTPResult: Sendable, Hashable {
    /// A complete answer: status, raw `Retry-After`, body (at most the cap).
    case response(status: Int, retryAfter: String?, body: Data)
    /// No usable answer (connection, deadline, body over the cap); worth retrying.
    case failed(reason: String)
    /// No answer because the connection closed under the request: it may have been processed,
    /// and it may be what made the server close it (with every request in flight on it).
    case lost(reason: String)
}

/// The HTTP/2 client of a router: AsyncHTTPClient negotiates h2 by ALPN and multiplexes every
/// request to a host over few connections. Each request has a deadline; each answer body is
/// capped. Requests sent *alone* (after their connection was lost) go through solo lanes
/// instead: clients of their own, each with one request at a time, so that such a request is
/// on a connection that carries nothing else.
final class FCMHTTP: Sendable {
    private let client: HTTPClient
    private let solo: FCMSoloLanes
    let settings: FCMConnectionSettings

    /// - Parameter trustedCertificatesPath: PEM certificates to trust instead of the system
    ///   roots (the loopback double's self-signed one).
    init(trustedCertificatesPath: String?, settings: FCMConnectionSettings, eventLoopGroup: any EventLoopGroup) throws(FCMConfigurationError) {
        var tls = TLSConfiguration.makeClientConfiguration()
        if let trustedCertificatesPath {
            do {
                tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(trustedCertificatesPath))
            } catch {
                throw .unreadableFile(trustedCertificatesPath, "not a PEM certificate file")
            }
        }
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls)
        configuration.httpVersion = .automatic
        configuration.timeout = .init(
            connect: .init(settings.connectTimeout), read: .init(max(settings.requestTimeout, settings.tokenRequestTimeout)))
        configuration.decompression = .disabled
        configuration.redirectConfiguration = .disallow
        self.client = HTTPClient(eventLoopGroupProvider: .shared(eventLoopGroup), configuration: configuration)
        // A fresh connection for every message sent alone: one that a message before it on the
        // lane made the server close is never reused for the next (which would be lost with it,
        // unsent, and counted against it).
        var solo = configuration
        solo.maximumUsesPerConnection = 1
        self.solo = FCMSoloLanes(
            (0..<max(1, settings.soloLanes)).map { _ in HTTPClient(eventLoopGroupProvider: .shared(eventLoopGroup), configuration: solo) })
        self.settings = settings
    }

    /// POSTs `body` and reads the answer, within `timeout` (default: the request deadline);
    /// `alone`: on a solo lane, once one is free (the wait counts against the deadline).
    func post(
        url: String, contentType: String, authorization: String?, body: Data, timeout: Duration? = nil, alone: Bool = false
    ) async
        -> FCMHTTPResult
    {
        let deadline = NIODeadline.now() + .init(timeout ?? settings.requestTimeout)
        guard alone else { return await post(on: client, url: url, contentType: contentType, authorization: authorization, body: body, by: deadline) }
        let lane = await solo.take()
        let result = await post(on: lane, url: url, contentType: contentType, authorization: authorization, body: body, by: deadline)
        await solo.give(lane)
        return result
    }

    private func post(
        on client: HTTPClient, url: String, contentType: String, authorization: String?, body: Data, by deadline: NIODeadline
    ) async
        -> FCMHTTPResult
    {
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "content-type", value: contentType)
        if let authorization { request.headers.add(name: "authorization", value: authorization) }
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await client.execute(request, deadline: deadline)
            let bytes = try await response.body.collect(upTo: settings.maximumResponseBytes)
            return .response(status: Int(response.status.code), retryAfter: response.headers.first(name: "retry-after"), body: Data(bytes.readableBytesView))
        } catch let error as HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout: return .failed(reason: "Timeout")
            case .connectTimeout, .tlsHandshakeTimeout: return .failed(reason: "ConnectTimeout")
            case .remoteConnectionClosed: return .lost(reason: "ConnectionClosed")
            case .cancelled: return .failed(reason: "Cancelled")
            default: return .failed(reason: "HTTPClientError: \(error)")
            }
        } catch is NIOTooManyBytesError {
            return .failed(reason: "AnswerTooLarge")
        } catch let error as ChannelError {
            switch error {
            // The connection closed while the request was being written or its answer read.
            case .ioOnClosedChannel, .eof, .alreadyClosed, .outputClosed: return .lost(reason: "ConnectionClosed")
            default: return .failed(reason: "ChannelError: \(error)")
            }
        } catch {
            return .failed(reason: "\(type(of: error))")
        }
    }

    /// Closes every connection. Call once, on the way out.
    func shutdown() async {
        try? await client.shutdown()
        for lane in solo.all { try? await lane.shutdown() }
    }
}

/// Clients that carry one request at a time each: a request waits for a free one.
private actor FCMSoloLanes {
    let all: [HTTPClient]
    private var free: [HTTPClient]
    private var waiting: [CheckedContinuation<HTTPClient, Never>] = []

    init(_ clients: [HTTPClient]) {
        all = clients
        free = clients
    }

    func take() async -> HTTPClient {
        if let client = free.popLast() { return client }
        return await withCheckedContinuation { waiting.append($0) }
    }

    func give(_ client: HTTPClient) {
        if waiting.isEmpty {
            free.append(client)
        } else {
            waiting.removeFirst().resume(returning: client)
        }
    }
}

/// The token request over HTTP: `POST token_uri` with the form-encoded assertion.
struct FCMHTTPTokenExchange: FCMTokenExchange {
    let http: FCMHTTP

    func exchange(_ assertion: FCMAssertion, tokenURI: String) async -> Result<FCMAccessGrant, FCMTokenFailure> {
        let result = await http.post(
            url: tokenURI, contentType: "application/x-www-form-urlencoded", authorization: nil, body: Data(assertion.formBody.utf8),
            timeout: http.settings.tokenRequestTimeout)
        switch result {
        case .failed(let reason), .lost(let reason):
            return .failure(.unavailable(reason: "token endpoint: \(reason)"))
        case .response(let status, _, let body):
            return Self.judge(status: status, body: body)
        }
    }

    /// The token endpoint's answer: a grant, a refusal of the credentials, or trouble.
    static func judge(status: Int, body: Data) -> Result<FCMAccessGrant, FCMTokenFailure> {
        struct Grant: Decodable {
            var accessToken: String?
            var expiresIn: Int64?
            var error: String?

            enum CodingKeys: String, CodingKey {
                case accessToken = "access_token"
                case expiresIn = "expires_in"
                case error
            }
        }
        let answer = try? JSONDecoder().decode(Grant.self, from: body)
        switch status {
        case 200:
            guard let token = answer?.accessToken, !token.isEmpty, let expiresIn = answer?.expiresIn, expiresIn > 0 else {
                return .failure(.unavailable(reason: "token endpoint: 200 without access_token and expires_in"))
            }
            return .success(FCMAccessGrant(token: token, expiresIn: expiresIn))
        case 429, 500...599:
            return .failure(.unavailable(reason: "token endpoint: HTTP \(status)"))
        default:
            // invalid_grant (bad signature, unknown or disabled account, clock skew),
            // invalid_client, unauthorized_client, …: the credentials are refused.
            return .failure(.refused(reason: "token endpoint: \(answer?.error ?? "HTTP \(status)")"))
        }
    }
}
