import Foundation
import FrostboxCore
import HTTPTypes
import Hummingbird

/// An error answered to the client as `{"error": {"code": "…", "message": "…"}}` with its own
/// status. Everything else a handler throws becomes an opaque 500 (see `JSONErrorMiddleware`).
public struct APIError: HTTPResponseError, Sendable, Equatable {
    public let status: HTTPResponse.Status
    /// Stable machine-readable code.
    public let code: String
    /// Message for people.
    public let message: String
    /// Extra headers (e.g. `Allow`, `Retry-After`).
    public var headers: HTTPFields

    public init(_ status: HTTPResponse.Status, code: String, _ message: String, headers: HTTPFields = [:]) {
        self.status = status
        self.code = code
        self.message = message
        self.headers = headers
    }

    /// A 400 for input that fails validation, under the core's code for it.
    public static func badRequest(_ code: ValidationError.Code, _ message: String) -> APIError {
        APIError(.badRequest, code: code.rawValue, message)
    }

    /// Why a request body could not be read at all (before any field is validated).
    public enum BodyProblem: String, Sendable {
        case missingBody = "missing_body"
        case invalidBody = "invalid_body"
        case malformedJSON = "malformed_json"
    }

    /// A 400 for a body that is missing, not JSON, or not a JSON object.
    public static func badBody(_ problem: BodyProblem, _ message: String) -> APIError {
        APIError(.badRequest, code: problem.rawValue, message)
    }

    public static func notFound(_ message: String) -> APIError {
        APIError(.notFound, code: "not_found", message)
    }

    /// The database cannot take the request now: 503 `storage_unavailable`, retry after a
    /// second when only a connection was missing, after five when the database itself is in trouble.
    public init(_ error: StorageUnavailableError) {
        var headers = HTTPFields()
        headers[.retryAfter] = error.reason == .noConnection ? "1" : "5"
        self.init(
            .serviceUnavailable, code: "storage_unavailable", "the database cannot take this request now (\(error.reason.rawValue)); retry later",
            headers: headers)
    }

    /// A validation failure from the core.
    public init(_ error: ValidationError) {
        self.init(.badRequest, code: error.code.rawValue, error.message)
    }

    /// The 413 for a request body over `FrostboxRequestContext.maximumBodySize`.
    public static let contentTooLarge = APIError(
        .contentTooLarge, code: "payload_too_large", "request body exceeds \(FrostboxRequestContext.maximumBodySize) bytes")

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        var headers = self.headers
        headers[.contentType] = "application/json; charset=utf-8"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: jsonBody)))
    }

    /// The answer's body: `{"error": {"code": …, "message": …}}`.
    var jsonBody: Data {
        // Two strings in a struct: encoding cannot fail.
        (try? JSONEncoder.frostbox.encode(ErrorBody(error: .init(code: code, message: message)))) ?? Data()
    }

    struct ErrorBody: Encodable {
        struct Detail: Encodable {
            let code: String
            let message: String
        }
        let error: Detail
    }
}

extension JSONEncoder {
    /// Frostbox's JSON: sorted keys (stable output), no escaped slashes.
    public static var frostbox: JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return encoder
    }
}
