import ArgumentParser
import FrostboxApp
import Foundation
import Logging

/// `frostbox push-test --app BUNDLE --token HEX [--sandbox]`: one test alert, its typed outcome.
struct PushTest: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push-test", abstract: "Send one test alert through a configured APNs app and print what became of it.",
        discussion: "Apps come from the configuration (apns.apps in the YAML file, FROSTBOX_APNS_… variables, or apns.apps_file).")

    @Option(help: "Bundle id of a configured APNs app.") var app: String
    @Option(help: "Device token (hex).") var token: String
    @Flag(help: "Send to the sandbox gateway (development builds of the app).") var sandbox = false
    @Option(help: "YAML configuration file (env FROSTBOX_CONFIG).") var config: String?
    @Option(help: "JSON file of APNs apps (apns.apps_file; env FROSTBOX_APNS_APPS_FILE).") var appsFile: String?
    @Option(name: .customLong("set"), help: ArgumentHelp("Set any configuration key.", valueName: "key=value")) var settings: [String] = []

    func run() async throws {
        var logger = Logger(label: "frostbox.push-test")
        logger.logLevel = .warning
        let report: PushCommands.Report
        do {
            let overrides = try ConfigLoader.overrides(named: ["apns.apps_file": appsFile], settings: settings)
            let loaded = try await ConfigLoader.load(.init(configPath: config, overrides: overrides), logger: logger)
            report = try await PushCommands.pushTestReport(config: loaded, bundleID: app, token: token, sandbox: sandbox, logger: logger)
        } catch {
            FileHandle.standardError.write(Data("frostbox push-test: \(error)\n".utf8))
            throw ExitCode(78)  // EX_CONFIG
        }
        print(report.line)
        if !report.delivered { throw ExitCode.failure }
    }
}
