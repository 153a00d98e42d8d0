import Foundation
import FrostboxAPNs
import FrostboxCore
import FrostboxPushEngine
import Logging
import MockAPNs
import Testing

@Suite("APNs certificate authentication against mock-apns")
struct APNsCertificateAuthTests {
    @Test("a TLS client certificate authenticates pushes for its own topic only, without a JWT")
    func certificateAuth() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("apns-cert-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let issued = try MockAPNsCertificates.makeClientCertificate(bundleID: APNsHarness.bundleID)
        let certificatePath = directory.appendingPathComponent("push.crt").path
        let keyPath = directory.appendingPathComponent("push.key").path
        try issued.certificatePEM.write(toFile: certificatePath, atomically: true, encoding: .utf8)
        try issued.privateKeyPEM.write(toFile: keyPath, atomically: true, encoding: .utf8)

        let harness = try await APNsHarness.start { configuration in
            configuration.signingKeys = [:]
            if let trusted = try? MockAPNsSettings.TrustedCertificate(pemPath: certificatePath) {
                configuration.clientCertificates = [trusted]
            }
        }
        #expect(harness.mock.configuration.clientCertificates.first?.topics == [APNsHarness.bundleID])
        let identity = try APNsClientIdentity(certificatePEMPath: certificatePath, privateKeyPEMPath: keyPath)
        func app(_ bundleID: String) -> APNsAppSettings {
            APNsAppSettings(
                bundleID: bundleID, credentials: .certificate(identity), environment: .production,
                customEndpoint: APNsEndpoint(host: "127.0.0.1", port: harness.mock.port),
                trustedCertificatesPath: harness.mock.certificatePath)
        }
        let router = try harness.router([app(APNsHarness.bundleID), app(APNsHarness.otherBundleID)])
        let push = alert(to: token("a1", 1))
        #expect(await router.send(push) == .delivered(messageID: push.messageID))
        #expect(
            await router.send(alert(to: token("a1", 2), topic: APNsHarness.otherBundleID))
                == .permanentFailure(status: 400, reason: "TopicDisallowed"))
        let delivery = try #require(await harness.mock.deliveries().first)
        #expect(delivery.certificateAuth)
        #expect(delivery.keyID == nil)
        try await harness.stop(router)
    }

    @Test("without a certificate or token the double answers 403 MissingProviderToken")
    func missingCredentials() async throws {
        let harness = try await APNsHarness.start()
        let issued = try MockAPNsCertificates.makeClientCertificate(bundleID: APNsHarness.bundleID)
        let identity = try APNsClientIdentity(certificatePEM: issued.certificatePEM, privateKeyPEM: issued.privateKeyPEM)
        // The mock trusts no client certificate: this one is ignored, so no credentials at all.
        let router = try harness.router([
            APNsAppSettings(
                bundleID: APNsHarness.bundleID, credentials: .certificate(identity),
                customEndpoint: APNsEndpoint(host: "127.0.0.1", port: harness.mock.port),
                trustedCertificatesPath: harness.mock.certificatePath)
        ])
        #expect(await router.send(alert(to: token("a1", 1))) == .authFailure(reason: "MissingProviderToken"))
        try await harness.stop(router)
    }
}
