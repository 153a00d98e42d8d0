/// Why a value from outside was refused. Carries a stable machine code, the offending field
/// and a human message; the HTTP layer maps it to a 400 JSON error.
public struct ValidationError: Error, Sendable, Equatable, CustomStringConvertible {
    /// Stable error codes, used as the `code` of the JSON error body.
    public enum Code: String, Sendable {
        case invalidToken = "invalid_token"
        case invalidCoordinate = "invalid_coordinate"
        case invalidName = "invalid_name"
        case invalidUnit = "invalid_unit"
        case invalidField = "invalid_field"
        case missingField = "missing_field"
        case invalidQuery = "invalid_query"
        /// A Web Push endpoint whose push service is not allowed (not on the allow-list, or at
        /// a private, loopback, link-local or multicast address).
        case endpointNotAllowed = "endpoint_not_allowed"
    }

    /// The machine-readable reason.
    public let code: Code
    /// The input field at fault, when there is one.
    public let field: String?
    /// A message for people.
    public let message: String

    public init(_ code: Code, field: String? = nil, _ message: String) {
        self.code = code
        self.field = field
        self.message = message
    }

    public var description: String { message }
}
