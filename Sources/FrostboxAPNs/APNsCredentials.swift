/// How a provider proves to APNs that it may push for an app.
public enum APNsCredentials: Sendable, CustomStringConvertible {
    /// Token authentication: an ES256 JWT signed with a `.p8` key; one key serves every app
    /// of the team, in both environments.
    case token(APNsSigningKey)
    /// Certificate authentication: a TLS client certificate issued for one app (and, for
    /// production certificates, one environment).
    case certificate(APNsClientIdentity)

    public var description: String {
        switch self {
        case .token(let key): "token(\(key))"
        case .certificate(let identity): "certificate(\(identity))"
        }
    }
}
