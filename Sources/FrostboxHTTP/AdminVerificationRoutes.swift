import FrostboxCore
import Hummingbird

/// `GET /admin/verification` (issue #48): how right the alerts were — the scores of the
/// nights checked against what happened, from `since` (a date, default: every night kept).
extension AdminRoutes {
    func addVerification(to routes: RouteBuilder) {
        routes.on(.get, "/admin/verification") { request, context in
            try authorize(request, context)
            guard let verification = operations.verification else {
                throw APIError(
                    .conflict, code: "verification_off", "nights are not kept in this process (verification.enabled is false): there is nothing to score")
            }
            let since = try Self.date(request.uri.queryParameters["since"].map(String.init), name: "since")
            return JSONResponse(.ok, VerificationBody(try await verification(since)))
        }
    }

    /// A `YYYY-MM-DD` date, or nil when absent.
    static func date(_ raw: String?, name: String) throws(APIError) -> LocalDate? {
        guard let raw else { return nil }
        // A real calendar date: 2026-02-30 names none.
        guard raw.count == 10, let date = LocalDate(text: raw), date.year >= 1, LocalDate(daysSinceEpoch: date.daysSinceEpoch) == date else {
            throw APIError.badRequest(.invalidField, "\(name) must be a date as YYYY-MM-DD (got \"\(raw.prefix(40))\")")
        }
        return date
    }
}
