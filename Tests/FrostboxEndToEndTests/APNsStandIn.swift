import Crypto
import Foundation
import Logging
import MockAPNs

/// The APNs stand-in with token authentication for tests that run the real executable: a
/// signing key written as the `.p8` file the app reads, the mock server trusting it, and the
/// apps file (`FROSTBOX_APNS_APPS_FILE`) that points `frostbox` at the server.
struct APNsStandIn {
    let server: MockAPNsServer
    /// The apps file to hand to `frostbox`.
    let appsPath: String

    static let teamID = "TEAM123456"

    /// Starts the stand-in; its key and apps file go in `directory`.
    static func start(in directory: URL, keyID: String, latency: Duration = .zero, logger: Logger) async throws -> APNsStandIn {
        let privateKey = P256.Signing.PrivateKey()
        let keyPath = directory.appendingPathComponent("AuthKey_\(keyID).p8").path
        try privateKey.pemRepresentation.write(toFile: keyPath, atomically: true, encoding: .utf8)
        var settings = MockAPNsSettings()
        settings.signingKeys[keyID] = .init(teamID: teamID, publicKey: privateKey.publicKey)
        settings.latency = latency
        let server = try await MockAPNsServer.start(settings, logger: logger)
        let apps = directory.appendingPathComponent("apps.json")
        let appsJSON: [String: Any] = [
            "apps": [
                [
                    "bundle_id": "com.example.frost", "environment": "sandbox", "host": "127.0.0.1:\(server.port)",
                    "trusted_certificates_path": server.certificatePath, "key_path": keyPath, "key_id": keyID, "team_id": teamID,
                ]
            ]
        ]
        try JSONSerialization.data(withJSONObject: appsJSON).write(to: apps)
        return APNsStandIn(server: server, appsPath: apps.path)
    }
}
