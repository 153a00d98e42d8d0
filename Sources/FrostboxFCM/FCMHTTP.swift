import AsyncHTTPClient
import Foundation
import FrostboxCore
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL

/// A token endpoint's answer, or why there was none.
enum FCMHTTPResult: Sendable, Hashable {
    /// A complete answer: status, body (at most the cap).
    case response(status: Int, body: Data)
    /// No usable answer (connection, deadline, body over the cap); worth retrying.
    case failed(reason: String)
}

/// The client of the token endpoint (`POST token_uri`, a few requests an hour): AsyncHTTPClient,
/// with a deadline on each request and a cap on each answer. Messages go through the push
/// engine's HTTP/2 transport instead.
final class FCMHTTP: Sendable {
    private let client: HTTPClient
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
        configuration.timeout = .init(connect: .init(settings.connectTimeout), read: .init(settings.tokenRequestTimeout))
        configuration.decompression = .disabled
        configuration.redirectConfiguration = .disallow
        self.client = HTTPClient(eventLoopGroupProvider: .shared(eventLoopGroup), configuration: configuration)
        self.settings = settings
    }

    /// POSTs `body` and reads the answer, within `timeout`.
    func post(url: String, contentType: String, body: Data, timeout: Duration) async -> FCMHTTPResult {
        let deadline = NIODeadline.now() + .init(timeout)
        var request = HTTPClientRequest(url: url)
        request.method = .POST
        request.headers.add(name: "content-type", value: contentType)
        request.body = .bytes(ByteBuffer(bytes: body))
        do {
            let response = try await client.execute(request, deadline: deadline)
            let bytes = try await response.body.collect(upTo: settings.maximumResponseBytes)
            return .response(status: Int(response.status.code), body: Data(bytes.readableBytesView))
        } catch let error as HTTPClientError {
            switch error {
            case .deadlineExceeded, .readTimeout: return .failed(reason: "Timeout")
            case .connectTimeout, .tlsHandshakeTimeout: return .failed(reason: "ConnectTimeout")
            case .remoteConnectionClosed: return .failed(reason: "ConnectionClosed")
            case .cancelled: return .failed(reason: "Cancelled")
            default: return .failed(reason: "HTTPClientError: \(error)")
            }
        } catch is NIOTooManyBytesError {
            return .failed(reason: "AnswerTooLarge")
        } catch {
            return .failed(reason: "\(type(of: error))")
        }
    }

    /// Closes every connection. Call once, on the way out.
    func shutdown() async {
        try? await client.shutdown()
    }
}

/// The token request over HTTP: `POST token_uri` with the form-encoded assertion.
struct FCMHTTPTokenExchange: FCMTokenExchange {
    let http: FCMHTTP

    func exchange(_ assertion: FCMAssertion, tokenURI: String) async -> Result<FCMAccessGrant, FCMTokenFailure> {
        let result = await http.post(
            url: tokenURI, contentType: "application/x-www-form-urlencoded", body: Data(assertion.formBody.utf8),
            timeout: http.settings.tokenRequestTimeout)
        switch result {
        case .failed(let reason):
            return .failure(.unavailable(reason: "token endpoint: \(reason)"))
        case .response(let status, let body):
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
