import Foundation
import FrostboxCore
import FrostboxFixtures
import Logging
import Testing

@testable import FrostboxApp

/// The log-only sink serves both platforms: it keeps the push port's contract, and its lines
/// are not tagged as APNs'.
@Suite("Log-only push sink")
struct LogOnlyPushSenderTests {
    @Test("the log-only sink keeps the contract: alerts delivered to the log, verification pushes never")
    func contract() async {
        let sender = LogOnlyPushSender(logger: Logger(label: "contract"))
        let tokens = (0..<10).map { DeviceToken(trusted: String(repeating: "a1", count: 15) + String(format: "%02x", $0)) }
        let found = await PushSenderContract.violations(
            of: sender, tokens: tokens, verification: { _ in .permanentFailure(status: 0, reason: PushOutcome.notConfiguredReason) }
        ) { .delivered(messageID: $0.messageID) }
        #expect(found.isEmpty, "\(found)")
    }

    @Test("a verification push is never reported delivered: the log proves no device real, and the device stays pending")
    func verificationNotDelivered() async {
        let sender = LogOnlyPushSender(logger: Logger(label: "test"))
        let verification = PushNotification.verification(
            token: DeviceToken(trusted: "fJ3kX9Qr:APA91bH_invented"), platform: .android, app: nil, environment: nil, messageID: "m", expiration: 0)
        let outcome = await sender.send(verification)
        #expect(outcome == .permanentFailure(status: 0, reason: PushOutcome.notConfiguredReason))
        #expect(!VerificationTally.rejects(outcome, removingReasons: ["DeviceTokenNotForTopic", "SENDER_ID_MISMATCH"]))
    }

    @Test("an Android push is logged with its platform, and not under the APNs module's tag")
    func androidNotTaggedAPNs() async throws {
        let lines = LogFormatTests.Lines()
        let token = try DeviceToken("fJ3kX9Qr:APA91bH_q-1Zx", platform: .android)
        let push = PushNotification(token: token, platform: .android, messageID: "m-2", content: AlertContent(title: "Frost", body: "Frost tonight"))
        #expect(await LogOnlyPushSender(logger: lines.logger()).send(push) == .delivered(messageID: "m-2"))
        let object = try LogFormatTests.object(try #require(lines.all.first))
        #expect(object["platform"] as? String == "android")
        #expect(object["source"] as? String == "FrostboxApp")
    }
}
