import FrostboxAPNs
import FrostboxCore
import FrostboxFixtures
import Logging
import Testing

@Suite("The push port's contract: APNs against mock-apns")
struct APNsPushSenderContractTests {
    @Test("the APNs router keeps the contract, a dead token's 410 among delivered pushes")
    func apnsRouter() async throws {
        let harness = try await APNsHarness.start()
        let router = try harness.router()
        // mock-apns answers 410 Unregistered, stamped with its clock, to tokens starting 0410.
        let tokens = (0..<30).map { token($0 == 7 ? "0410" : "a1", $0) }
        let died = harness.mockClock.now * 1000
        let found = await PushSenderContract.violations(of: router, tokens: tokens, app: APNsHarness.bundleID) { push in
            push.token == tokens[7] ? .invalidToken(reason: "Unregistered", unregisteredAtMilliseconds: died) : .delivered(messageID: push.messageID)
        }
        try await harness.stop(router)
        #expect(found.isEmpty, "\(found)")
    }
}
