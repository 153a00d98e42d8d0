import FrostboxCore
import HTTPTypes
import Hummingbird

/// A deadline on answering one request, body read included: a handler still busy after
/// `timeout` is cancelled and the client gets a 503 JSON error with `Retry-After`, so slow
/// clients (a body sent a byte at a time) and stuck work cannot hold a request open forever.
///
/// The answer does not wait for the cancelled handler to return: work that does not notice
/// cancellation finishes or fails on its own, after the client has its answer.
public enum RequestDeadline {
    /// Runs `handler`, answering a 503 `request_timeout` when it outlives `timeout`.
    public static func run(
        _ timeout: Duration, request: Request, context: FrostboxRequestContext,
        handler: @Sendable @escaping (Request, FrostboxRequestContext) async throws -> Response
    ) async throws -> Response {
        let race = FirstOutcome<Response>()
        // Unstructured on purpose: a structured child would be awaited before the answer.
        let work = Task {
            do { race.settle(.success(try await handler(request, context))) } catch { race.settle(.failure(error)) }
        }
        let timer = Task {
            try? await Task.sleep(for: timeout)
            race.settle(.failure(Overdue()))
        }
        defer {
            work.cancel()
            timer.cancel()
        }
        do {
            return try await race.value()
        } catch is Overdue {
            var headers = HTTPFields()
            headers[.retryAfter] = "1"
            throw APIError(.serviceUnavailable, code: "request_timeout", "the request was not answered within \(timeout)", headers: headers)
        }
    }

    private struct Overdue: Error {}
}
