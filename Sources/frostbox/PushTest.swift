import ArgumentParser
import Foundation
import FrostboxApp
import FrostboxCore
import Logging

/// `frostbox push-test --app BUNDLE --token HEX [--sandbox]`: one test alert, its typed outcome.
extension DevicePlatform: ExpressibleByArgument {}

struct PushTest: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "push-test", abstract: "Send one test alert through a configured APNs or FCM app and print what became of it.",
        discussion:
            "Apps come from the configuration (apns.apps in the YAML file, FROSTBOX_APNS_… variables, or apns.apps_file; fcm.apps for Android).")

    @Option(help: "Bundle id of a configured APNs app, or package name of a configured FCM app (with --platform android).") var app: String
    @Option(help: "Device token: hex for ios, the FCM registration token for android.") var token: String?
    @Option(help: "A browser's subscription.toJSON() (with --platform web).") var subscription: String?
    @Option(help: "The device's platform: ios (APNs), android (FCM) or web (a browser, with --subscription).") var platform: DevicePlatform = .ios
    @Flag(help: "Send to the sandbox gateway (development builds of the app).") var sandbox = false
    @Option(help: "JSON file of APNs apps (apns.apps_file; env FROSTBOX_APNS_APPS_FILE).") var appsFile: String?
    @OptionGroup var options: ConfigOptions

    func validate() throws {
        if platform == .web {
            guard subscription != nil, token == nil else { throw ArgumentParser.ValidationError("--platform web takes --subscription, not --token") }
            return
        }
        guard let token, subscription == nil else { throw ArgumentParser.ValidationError("--token is required (--subscription is for --platform web)") }
        do {
            _ = try DeviceToken(token, platform: platform)
        } catch {
            throw ArgumentParser.ValidationError("--token: \(error)")
        }
    }

    func run() async throws {
        var logger = Logger(label: "frostbox.push-test")
        logger.logLevel = .warning
        let loaded = try await options.load(command: "push-test", named: ["apns.apps_file": appsFile], logger: logger)
        logger = Logger(label: "frostbox.push-test")
        logger.logLevel = .warning
        let report: PushCommands.Report
        do {
            report =
                if let subscription {
                    try await PushCommands.webPushTestReport(config: loaded, app: app, subscription: subscription, logger: logger)
                } else {
                    try await PushCommands.pushTestReport(
                        config: loaded, platform: platform, app: app, token: token ?? "", sandbox: sandbox, logger: logger)
                }
        } catch {
            FileHandle.standardError.write(Data("frostbox push-test: \(error)\n".utf8))
            throw ExitCode(78)  // EX_CONFIG
        }
        print(report.line)
        if !report.delivered { throw ExitCode.failure }
    }
}
