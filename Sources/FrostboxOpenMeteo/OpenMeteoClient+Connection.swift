import AsyncHTTPClient
import FrostboxCore
import NIOCore
import NIOPosix

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension OpenMeteoSettings {
    /// The `HTTPClient` configuration for this server: connections are bounded by
    /// `connectTimeoutSeconds` (apart from the request deadline) and a connection that cannot
    /// be made fails its request at once instead of being retried by the pool until the
    /// deadline, so a server that is not there is known in milliseconds.
    public var httpClientConfiguration: HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(
            connect: .milliseconds(Int64(max(0.001, connectTimeoutSeconds) * 1_000)),
            read: .milliseconds(Int64(max(0.001, requestTimeoutSeconds) * 1_000)))
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.decompression = .enabled(limit: .size(maximumBodyBytes))
        return configuration
    }
}

extension OpenMeteoClient {
    /// The start of every failure message for a server that could not be reached at all, so
    /// that a front end can say what to check (`frostbox forecast` hints at `--base-url`).
    public static let unreachablePrefix = "Could not connect to the forecast server"

    /// Whether `failure` says the forecast server could not be reached (nothing was sent).
    public static func isUnreachable(_ failure: ForecastFailure) -> Bool {
        if case .transport(let message) = failure { return message.hasPrefix(unreachablePrefix) }
        return false
    }

    /// An attempt that got no answer: what it cost, how it is retried, in plain words.
    func classify<Payload>(_ error: any Error) -> Attempt<Payload> {
        let server = "\(Self.unreachablePrefix) at \(configuration.baseURL)"
        func unreachable(_ why: String) -> Attempt<Payload> {
            // Nothing was sent, so nothing was charged; retrying within seconds rarely helps,
            // and the boxes go first in the next run.
            .failure(.transport("\(server): \(why)."), .never, charge: .nothing)
        }
        func connectTimedOut() -> Attempt<Payload> {
            // Nothing was sent either, but a lost handshake is often transient: retried with backoff,
            // each attempt bounded by the connect timeout.
            .failure(
                .transport("\(server): no connection within \(Self.seconds(configuration.connectTimeoutSeconds))."), .backoff(after: nil),
                charge: .nothing)
        }
        func cutOff(_ failure: ForecastFailure) -> Attempt<Payload> {
            // The request was sent: the server may have answered it, and charged it in full.
            .failure(failure, .backoff(after: nil), charge: .fullWeight)
        }
        switch error {
        case let error as HTTPClientError:
            switch error {
            case .connectTimeout:
                return connectTimedOut()
            case .getConnectionFromPoolTimeout:
                return .failure(.transport("No connection to the forecast server was free in time."), .backoff(after: nil), charge: .nothing)
            case .tlsHandshakeTimeout:
                return unreachable("the TLS handshake did not finish in time")
            case .deadlineExceeded, .readTimeout, .writeTimeout:
                return cutOff(.timeout)
            case .remoteConnectionClosed:
                return cutOff(.transport("The forecast server at \(configuration.baseURL) closed the connection before its answer was complete."))
            case .cancelled:
                return .failure(.transport("The forecast request was cancelled."), .never, charge: .fullWeight)
            case .invalidURL, .emptyHost, .emptyScheme:
                return .failure(.transport("The forecast URL \(configuration.baseURL) is not a usable http or https URL."), .never, charge: .nothing)
            default:
                return cutOff(.transport("The request to the forecast server at \(configuration.baseURL) failed: \(error)."))
            }
        case let error as NIOConnectionError:
            if error.dnsAError != nil || error.dnsAAAAError != nil, error.connectionErrors.isEmpty {
                return unreachable("the host name \(error.host) could not be resolved")
            }
            let causes = error.connectionErrors.map(\.error)
            return unreachable(causes.first.map(Self.connectReason) ?? "no address of \(error.host) accepted a connection")
        case let error as IOError where [ECONNREFUSED, ENETUNREACH, EHOSTUNREACH].contains(error.errnoCode):
            return unreachable(Self.connectReason(error))
        case let error as IOError:
            return cutOff(.transport("The connection to the forecast server at \(configuration.baseURL) failed: \(Self.errnoText(error.errnoCode))."))
        case ChannelError.connectTimeout:
            return connectTimedOut()
        case let error as ChannelError:
            return cutOff(.transport("The connection to the forecast server at \(configuration.baseURL) broke: \(error)."))
        default:
            // TLS failures (NIOSSL is not a dependency of this module, so its errors are
            // recognised by type name) happen before the request is sent.
            if String(reflecting: type(of: error)).contains("NIOSSL") {
                return unreachable("the TLS handshake failed (\(error))")
            }
            return cutOff(.transport("The request to the forecast server at \(configuration.baseURL) failed: \(error)."))
        }
    }

    /// Why a connection could not be made, in words.
    static func connectReason(_ error: any Error) -> String {
        switch error {
        case let error as IOError: errnoText(error.errnoCode)
        case ChannelError.connectTimeout: "the connection timed out"
        default: "\(error)"
        }
    }

    static func errnoText(_ code: CInt) -> String {
        switch code {
        case ECONNREFUSED: "the connection was refused (is it running, and is the port right?)"
        case ENETUNREACH: "the network is unreachable"
        case EHOSTUNREACH: "the host is unreachable"
        case ETIMEDOUT: "the connection timed out"
        case ECONNRESET: "the connection was reset"
        case EPIPE: "the connection was closed while the request was being written"
        default: String(cString: strerror(code)).lowercased()
        }
    }

    static func seconds(_ value: Double) -> String {
        value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
    }
}
