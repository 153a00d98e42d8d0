import ArgumentParser
import FrostboxApp
import Foundation
import Logging

/// `frostbox push-test --app BUNDLE --token HEX [--sandbox]`: one test alert, its typed outcome.
struct PushTest: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push-test", abstract: "Send one test alert through a configured APNs app and print what became of it.")

    @Option(help: "Bundle id of a configured APNs app.") var app: String
    @Option(help: "Device token (hex).") var token: String
    @Flag(help: "Send to the sandbox gateway (development builds of the app).") var sandbox = false
    @Option(help: "JSON file of APNs apps (env FROSTBOX_APNS_APPS_FILE).") var appsFile: String?

    func run() async throws {
        var config = FrostboxConfig()
        if let appsFile { config.push.appsFile = appsFile }
        var logger = Logger(label: "frostbox.push-test")
        logger.logLevel = .warning
        let report: PushCommands.Report
        do {
            report = try await PushCommands.pushTestReport(config: config, bundleID: app, token: token, sandbox: sandbox, logger: logger)
        } catch {
            FileHandle.standardError.write(Data("frostbox push-test: \(error)\n".utf8))
            throw ExitCode(78)  // EX_CONFIG
        }
        print(report.line)
        if !report.delivered { throw ExitCode.failure }
    }
}
