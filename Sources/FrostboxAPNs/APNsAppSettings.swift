import FrostboxCore

/// One app that Frostbox pushes to: its bundle id (the `apns-topic`), how it authenticates
/// and where its pushes go.
public struct APNsAppSettings: Sendable {
    /// The app's bundle id.
    public var bundleID: String
    /// Token or certificate credentials.
    public var credentials: APNsCredentials
    /// The environment for devices that did not say which one they use.
    public var environment: PushEnvironment
    /// Replaces Apple's gateways (both environments) with one host:port, for tests and staging.
    public var customEndpoint: APNsEndpoint?
    /// PEM file with the certificate(s) to trust for `customEndpoint` instead of the system
    /// roots (the mock's self-signed certificate).
    public var trustedCertificatesPath: String?

    public init(
        bundleID: String, credentials: APNsCredentials, environment: PushEnvironment = .production,
        customEndpoint: APNsEndpoint? = nil, trustedCertificatesPath: String? = nil
    ) {
        self.bundleID = bundleID
        self.credentials = credentials
        self.environment = environment
        self.customEndpoint = customEndpoint
        self.trustedCertificatesPath = trustedCertificatesPath
    }

    /// The gateway for a device in `environment` (nil: the app's own).
    public func endpoint(for environment: PushEnvironment?) -> APNsEndpoint {
        customEndpoint ?? .apple(environment ?? self.environment)
    }
}
