import Foundation
import FrostboxCore
import HTTPTypes
import Hummingbird
import Logging

/// Turns every failure into a JSON error: our `APIError`s as they are, framework errors
/// (unknown route, wrong method, body too large) into their JSON form, and anything
/// unexpected into an opaque 500 that is logged.
public struct JSONErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    let routes: RouteRegistry

    public init(routes: RouteRegistry) {
        self.routes = routes
    }

    public func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as APIError {
            throw error
        } catch let error as any HTTPResponseError {
            throw translate(error.status, request: request)
        } catch let error as StorageUnavailableError {
            // Not logged here: the database adapter logs each change of the database's state once.
            throw APIError(error)
        } catch {
            // The route pattern, not the raw path: paths carry device tokens, which never go to logs whole.
            context.logger.error(
                "unhandled error",
                metadata: ["error": "\(String(reflecting: type(of: error)))", "route": "\(context.endpointPath ?? "unmatched")"])
            throw APIError(.internalServerError, code: "internal_error", "internal server error")
        }
    }

    func translate(_ status: HTTPResponse.Status, request: Request) -> APIError {
        switch status {
        case .notFound:
            let allowed = routes.methods(matching: request.uri.path)
            if !allowed.isEmpty {
                var headers = HTTPFields()
                headers[.allow] = allowed.map(\.rawValue).sorted().joined(separator: ", ")
                return APIError(
                    .methodNotAllowed, code: "method_not_allowed",
                    "\(request.method.rawValue) is not allowed on \(request.uri.path)", headers: headers)
            }
            return APIError(.notFound, code: "not_found", "no route for \(request.method.rawValue) \(request.uri.path)")
        case .contentTooLarge:
            return .contentTooLarge
        default:
            return APIError(status, code: "http_\(status.code)", status.reasonPhrase)
        }
    }
}
