import Foundation
import FrostboxWebPush
import Logging

extension ConfigKeys {
    /// Field names under `webpush.apps.<name>.`.
    static let webPushAppFields = ["vapid_key_path", "subject", "messages_per_minute"]

    /// Reads `webpush.*` into `settings`. Each app's VAPID key is read here (a file group or
    /// others may access is refused), so that a bad key stops start-up naming its key.
    static func readWebPush(_ r: inout ConfigLoader.Reader, into settings: inout WebPushSettings) throws(ConfigurationError) {
        if let app = try r.string("webpush.default_app") { settings.defaultApp = app.isEmpty ? nil : app }
        if let timeout = try r.duration("webpush.request_timeout", in: .seconds(1) ... .seconds(300)) {
            settings.connection.http2.requestTimeout = timeout
        }
        if let connections = try r.int("webpush.max_connections", in: 1...64) { settings.connection.http2.maximumConnections = connections }
        if let services = try r.list("webpush.push_services") { settings.pushServices = services }
        if let services = try r.list("webpush.private_push_services") { settings.privatePushServices = services }
        if let path = try r.string("webpush.trusted_certificates_path"), !path.isEmpty {
            guard FileManager.default.isReadableFile(atPath: path) else { throw r.fail("webpush.trusted_certificates_path", "cannot read \(path)") }
            settings.connection.trustedCertificatesPath = path
        }
        do throws(WebPushServicesError) {
            _ = try settings.services()
        } catch {
            throw r.fail(settings.privatePushServices.contains(error.entry) ? "webpush.private_push_services" : "webpush.push_services", error.description)
        }
        for name in sectionNames(r, prefix: "webpush.apps.", environmentPrefix: "WEBPUSH_APPS_", fields: webPushAppFields) {
            settings.apps.append(try readWebPushApp(name, &r))
        }
        if let app = settings.defaultApp, !settings.apps.contains(where: { $0.name == app }) {
            throw r.fail("webpush.default_app", "\(app) is not the name of a configured app")
        }
    }

    static func readWebPushApp(_ name: String, _ r: inout ConfigLoader.Reader) throws(ConfigurationError) -> WebPushApp {
        let base = "webpush.apps.\(name)"
        guard name.allSatisfy({ ($0.isASCII && $0.isLetter && $0.isLowercase) || $0.isNumber || $0 == "_" }) else {
            throw r.fail(base, "app names are lower-case letters, digits and _ (got \"\(name)\")")
        }
        guard let keyPath = try r.string("\(base).vapid_key_path"), !keyPath.isEmpty else {
            throw r.required(
                "\(base).vapid_key_path", fields: webPushAppFields, "is required for app \(name) (make one with `frostbox webpush keys --out FILE`)")
        }
        guard let subjectText = try r.string("\(base).subject"), !subjectText.isEmpty else {
            throw r.required("\(base).subject", fields: webPushAppFields, "is required for app \(name) (mailto:you@example.org or an https URL)")
        }
        let key: VAPIDKey
        do {
            key = try VAPIDKey(contentsOfFile: keyPath)
        } catch {
            throw r.fail("\(base).vapid_key_path", error.message)
        }
        let subject: VAPIDSubject
        do {
            subject = try VAPIDSubject(subjectText)
        } catch {
            throw r.fail("\(base).subject", error.message)
        }
        let rate = try r.int("\(base).messages_per_minute", in: 0...100_000_000) ?? 0
        return WebPushApp(name: name, key: key, subject: subject, messagesPerMinute: rate)
    }
}
