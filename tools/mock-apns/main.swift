import ArgumentParser
import Crypto
import Foundation
import Logging
import MockAPNs

/// `mock-apns`: the local APNs stand-in. Prints the bound port, then the path of the
/// certificate to trust, each on its own line; serves until killed.
struct MockAPNsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mock-apns",
        abstract: "A local APNs HTTP/2 provider API double (TLS, Apple's validation and errors, fault injection).",
        discussion: "Token prefixes inject faults: 0bad 400 BadDeviceToken, 0400 400 DeviceTokenNotForTopic, 0403 403 Forbidden, "
            + "0410 410 Unregistered, 0413 413 PayloadTooLarge, 0429 429, 0500 500, 0503 503, 0f1a 503 once per apns-id, "
            + "0dead connection reset, 05e7 stream reset once per apns-id. See tools/README.md.")

    @Option(help: "Address to bind.") var host = "127.0.0.1"
    @Option(help: "Port to bind (0 picks a free one, printed on stdout).") var port = 0
    @Option(help: "Directory for the self-signed certificate (mock-apns.crt) clients must trust.") var certDir: String?
    @Option(help: "A provider-token key: KEYID:TEAMID:PATH, PATH a PEM public key or the .p8 private key. Repeatable.")
    var key: [String] = []
    @Option(help: "A client certificate for certificate auth: PATH[:TOPIC,TOPIC…] (default topic: its common name). Repeatable.")
    var clientCert: [String] = []
    @Option(help: "A topic (bundle id) tokens may push to; none given: any. Repeatable.") var topic: [String] = []
    @Flag(help: "Accept requests without provider authentication.") var noAuth = false
    @Option(help: "Send GOAWAY after this many requests on a connection.") var goawayAfter: Int?
    @Option(help: "Close a connection abruptly when this many requests arrived on it.") var resetAfter: Int?
    @Option(help: "Fraction of valid requests answered with --fault-status.") var faultRate = 0.0
    @Option(help: "Status of rate faults: 429, 500 or 503.") var faultStatus = 503
    @Option(help: "Milliseconds added before each answer.") var latencyMs = 0
    @Option(help: "SETTINGS_MAX_CONCURRENT_STREAMS announced.") var maxStreams = 1000
    @Flag(help: "Answer at the request's headers, before reading the body, then RST_STREAM(NO_ERROR) (as nginx's return).")
    var answerBeforeBody = false
    @Option(help: "Event-loop threads.") var threads = 1
    @Option(help: "Append accepted deliveries to this JSON-lines file.") var deliveries: String?
    @Option(help: "A file of the device tokens APNs knows, one per line; any other token is answered 400 BadDeviceToken.")
    var knownTokens: String?

    func run() async throws {
        var configuration = MockAPNsSettings()
        configuration.host = host
        configuration.port = port
        configuration.certificateDirectory = certDir
        configuration.requireAuthentication = !noAuth
        configuration.topics = Set(topic)
        if let knownTokens {
            let text = try String(contentsOfFile: knownTokens, encoding: .utf8)
            configuration.knownTokens = Set(
                text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty })
        }
        configuration.goAwayAfterRequests = goawayAfter
        configuration.resetAfterRequests = resetAfter
        configuration.faultRate = faultRate
        configuration.rateFaultStatus = faultStatus
        configuration.latency = .milliseconds(latencyMs)
        configuration.maximumConcurrentStreams = maxStreams
        configuration.threads = threads
        configuration.answerBeforeBody = answerBeforeBody
        configuration.deliveriesPath = deliveries
        configuration.keepDeliveries = false
        for spec in key {
            let parts = spec.split(separator: ":", maxSplits: 2).map(String.init)
            guard parts.count == 3 else { throw ValidationError("--key wants KEYID:TEAMID:PATH, got \(spec)") }
            let pem = try String(contentsOfFile: parts[2], encoding: .utf8)
            let publicKey: P256.Signing.PublicKey
            if let key = try? P256.Signing.PublicKey(pemRepresentation: pem) {
                publicKey = key
            } else {
                publicKey = try P256.Signing.PrivateKey(pemRepresentation: pem).publicKey
            }
            configuration.signingKeys[parts[0]] = .init(teamID: parts[1], publicKey: publicKey)
        }
        for spec in clientCert {
            let parts = spec.split(separator: ":", maxSplits: 1).map(String.init)
            let topics = Set(parts.count > 1 ? parts[1].split(separator: ",").map(String.init) : [])
            configuration.clientCertificates.append(try .init(pemPath: parts[0], topics: topics))
        }

        var logger = Logger(label: "mock-apns")
        logger.logLevel = .warning
        let server = try await MockAPNsServer.start(configuration, logger: logger)
        FileHandle.standardOutput.write(Data("\(server.port)\n\(server.certificatePath)\n".utf8))
        try await server.run()
    }
}

do {
    let command = try MockAPNsCommand.parse()
    try await command.run()
} catch {
    MockAPNsCommand.exit(withError: error)
}
