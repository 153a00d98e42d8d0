import ArgumentParser
import Foundation
import Logging
import MockFCM

/// `mock-fcm`: the local FCM stand-in. Prints the bound port, the certificate to trust and the
/// path of a test service-account key file (its token_uri pointing here), each on its own
/// line; serves until killed.
struct MockFCMCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mock-fcm",
        abstract: "A local FCM HTTP v1 double (HTTP/2 + TLS, OAuth2 token endpoint, v1 schema checks, Google's errors, faults).",
        discussion: "Registration-token prefixes inject faults: UNREG 404 UNREGISTERED, BADTOKEN 400 INVALID_ARGUMENT (token), "
            + "MISMATCH 403 SENDER_ID_MISMATCH, QUOTA 429 QUOTA_EXCEEDED + Retry-After, QUOTAONCE the same once per alert_id, "
            + "UNAVAIL 503, FLAKY 503 once per alert_id, INTERNAL 500, EXPIRED 401, HANG no answer. "
            + "POST /admin/expire-tokens expires every access token issued; GET /admin/counters answers the counters. See tools/README.md.")

    @Option(help: "Address to bind.") var host = "127.0.0.1"
    @Option(help: "Port to bind (0 picks a free one, printed on stdout).") var port = 0
    @Option(help: "Directory for the certificate (mock-fcm.crt) and the test service-account file.") var dir: String?
    @Option(help: "Firebase project of the test service account.") var project = "mock-project"
    @Option(help: "Lifetime of the access tokens handed out, seconds.") var tokenLifetime: Int64 = 3600
    @Option(help: "Retry-After seconds of the quota fault.") var retryAfter = 1
    @Option(help: "Milliseconds added before each messages:send answer.") var latencyMs = 0
    @Flag(help: "Accept messages:send without an access token (a sink for benchmarks).") var noAuth = false
    @Option(help: "Append accepted deliveries to this JSON-lines file.") var deliveries: String?

    func run() async throws {
        var configuration = MockFCMSettings()
        configuration.host = host
        configuration.port = port
        configuration.certificateDirectory = dir
        configuration.accessTokenLifetime = tokenLifetime
        configuration.retryAfterSeconds = retryAfter
        configuration.latency = .milliseconds(latencyMs)
        configuration.requireAuthentication = !noAuth
        configuration.keepDeliveries = false
        configuration.deliveriesPath = deliveries
        var logger = Logger(label: "mock-fcm")
        logger.logLevel = .warning
        let server = try MockFCMServer(configuration, logger: logger)
        let project = project
        try await server.withRunning { port in
            let (_, path) = try server.makeServiceAccount(port: port, projectID: project)
            FileHandle.standardOutput.write(Data("\(port)\n\(server.certificatePath)\n\(path)\n".utf8))
            // Serve until the process is killed.
            while true { try await Task.sleep(for: .seconds(3600)) }
        }
    }
}

do {
    let command = try MockFCMCommand.parse()
    try await command.run()
} catch {
    MockFCMCommand.exit(withError: error)
}
