import Foundation
import HTTPTypes
import Hummingbird

/// Checks the admin token on a request: `Authorization: Bearer <token>` (scripts) or HTTP
/// Basic with the token as the password and any user name (a browser's login dialog).
struct AdminAuthorization: Sendable {
    /// The challenge a refusal carries.
    enum Challenge {
        /// `Bearer`: API clients; a browser shows no dialog.
        case bearer
        /// `Basic`: a browser asks for a user name and password.
        case basic

        var header: String {
            switch self {
            case .bearer: #"Bearer realm="frostbox-admin""#
            case .basic: #"Basic realm="frostbox-admin", charset="UTF-8""#
            }
        }
    }

    let token: AdminToken

    /// Throws a 401 unless the request carries the admin token in either scheme, or, with
    /// `bearerOnly` (routes that change state), as a Bearer token: a browser re-sends the
    /// Basic login it keeps after `/status` with any request a web page makes it send, but
    /// never an `Authorization: Bearer` header another site wrote, so no page can forge one.
    func check(
        _ request: Request, _ context: FrostboxRequestContext, challenge: Challenge = .bearer, bearerOnly: Bool = false,
        refusal: String = "this admin route changes state and takes the token only as Authorization: Bearer"
    ) throws {
        let header = request.headers[.authorization] ?? ""
        if bearerOnly, !header.lowercased().hasPrefix("bearer ") {
            context.logger.warning("request refused", metadata: ["path": "\(request.uri.path)", "credentials": "not bearer"])
            var headers = HTTPFields()
            headers[.wwwAuthenticate] = Challenge.bearer.header
            throw APIError(.unauthorized, code: "unauthorized", refusal, headers: headers)
        }
        guard let presented = Self.presentedSecret(header), token.matches(presented) else {
            context.logger.warning(
                "admin request refused", metadata: ["path": "\(request.uri.path)", "credentials": "\(header.isEmpty ? "none" : "wrong")"])
            var headers = HTTPFields()
            headers[.wwwAuthenticate] = challenge.header
            throw APIError(
                .unauthorized, code: "unauthorized", "a valid admin token is required (Bearer, or Basic with the token as password)", headers: headers)
        }
    }

    /// The secret of a `Bearer` or `Basic` authorization header (the scheme name is
    /// case-insensitive), or nil for anything else.
    static func presentedSecret(_ header: String) -> String? {
        guard let space = header.firstIndex(of: " ") else { return nil }
        let scheme = header[..<space].lowercased()
        let credentials = header[space...].trimmingCharacters(in: .whitespaces)
        switch scheme {
        case "bearer":
            return credentials
        case "basic":
            guard let data = Data(base64Encoded: credentials), let pair = String(data: data, encoding: .utf8),
                let colon = pair.firstIndex(of: ":")
            else { return nil }
            return String(pair[pair.index(after: colon)...])
        default:
            return nil
        }
    }
}
