import FrostboxCore
import FrostboxFCM
import FrostboxFixtures
import MockFCM
import Testing

@Suite("The push port's contract: FCM against mock-fcm")
struct FCMPushSenderContractTests {
    @Test("the FCM router keeps the contract, an UNREGISTERED token among delivered messages")
    func fcmRouter() async throws {
        try await FCMHarness.with { harness in
            let router = try harness.router()
            // mock-fcm answers 404 UNREGISTERED to tokens starting UNREG.
            let tokens = (0..<30).map { fcmToken($0 == 7 ? "UNREG-contract-\($0)" : "fcm:contract_\($0)") }
            let found = await PushSenderContract.violations(
                of: router, tokens: tokens, platform: .android, app: FCMHarness.packageName, gatewayNamesMessages: true
            ) { push in
                push.token == tokens[7]
                    ? .invalidToken(reason: "UNREGISTERED", unregisteredAtMilliseconds: nil) : .delivered(messageID: push.messageID)
            }
            await router.shutdown()
            #expect(found.isEmpty, "\(found)")
        }
    }
}
