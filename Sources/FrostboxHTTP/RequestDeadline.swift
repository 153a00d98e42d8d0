import HTTPTypes
import Hummingbird

/// A deadline on answering one request, body read included: a handler still busy after
/// `timeout` is cancelled and the client gets a 503 JSON error with `Retry-After`, so slow
/// clients (a body sent a byte at a time) and stuck work cannot hold a request open forever.
public enum RequestDeadline {
    /// Runs `handler`, answering a 503 `request_timeout` when it outlives `timeout`.
    public static func run(
        _ timeout: Duration, request: Request, context: FrostboxRequestContext,
        handler: @Sendable @escaping (Request, FrostboxRequestContext) async throws -> Response
    ) async throws -> Response {
        try await withThrowingTaskGroup(of: Response?.self) { group in
            group.addTask { try await handler(request, context) }
            group.addTask {
                try await Task.sleep(for: timeout)
                return nil
            }
            defer { group.cancelAll() }
            if let response = try await group.next() ?? nil {
                return response
            }
            var headers = HTTPFields()
            headers[.retryAfter] = "1"
            throw APIError(
                .serviceUnavailable, code: "request_timeout",
                "the request was not answered within \(timeout)",
                headers: headers)
        }
    }
}
