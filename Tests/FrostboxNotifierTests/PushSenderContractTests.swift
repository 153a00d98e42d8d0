import FrostboxCore
import FrostboxDoubles
import FrostboxFixtures
import Testing

@Suite("The push port's contract: the doubles and the platform router")
struct PushSenderContractTests {
    let tokens = (0..<40).map { Fixtures.token(900 + $0) }

    @Test("the recording double, with scripted outcomes, keeps the contract")
    func recording() async {
        let sender = RecordingPushSender()
        let dead = tokens[3]
        // Four scripted answers: the batch, the push alone (token 0 is not scripted), the stopped batch.
        sender.script(dead, [.invalidToken(reason: "Unregistered", unregisteredAtMilliseconds: nil)])
        let found = await PushSenderContract.violations(of: sender, tokens: tokens) { push in
            push.token == dead && push.messageID.hasSuffix("003")
                ? .invalidToken(reason: "Unregistered", unregisteredAtMilliseconds: nil)
                : .delivered(messageID: push.messageID)
        }
        #expect(found.isEmpty, "\(found)")
        #expect(sender.batchSizes.first == tokens.count)
    }

    @Test("the platform router keeps the contract for each platform")
    func byPlatform() async {
        let router = PushSenderByPlatform([.ios: RecordingPushSender(), .android: RecordingPushSender(), .web: RecordingPushSender()])
        for platform in DevicePlatform.allCases {
            let found = await PushSenderContract.violations(of: router, tokens: tokens, platform: platform) {
                .delivered(messageID: $0.messageID)
            }
            #expect(found.isEmpty, "\(platform): \(found)")
        }
    }

    @Test("a mixed batch is split by platform, each part handed over in one call, outcomes under the batch's own indices")
    func mixedBatch() async {
        let ios = RecordingPushSender()
        let android = RecordingPushSender()
        let router = PushSenderByPlatform([.ios: ios, .android: android])
        let batch = tokens.enumerated().map { index, token in
            PushSenderContract.push(to: token, platform: index % 3 == 0 ? .android : .ios, number: index)
        }
        let outcomes = await router.send(batch).collect(into: [Int: PushOutcome]()) { $0[$1] = $2 }
        #expect(outcomes.count == batch.count)
        for (index, push) in batch.enumerated() {
            #expect(outcomes[index] == .delivered(messageID: push.messageID))
        }
        #expect(ios.batchSizes == [batch.filter { $0.platform == .ios }.count])
        #expect(android.batchSizes == [batch.filter { $0.platform == .android }.count])
        #expect(Set(android.sent.map(\.messageID)) == Set(batch.filter { $0.platform == .android }.map(\.messageID)))

        let onlyIOS = PushSenderByPlatform([.ios: ios])
        let refused = await onlyIOS.send([batch[0], batch[1]]).collect(into: [Int: PushOutcome]()) { $0[$1] = $2 }
        #expect(refused[0] == .permanentFailure(status: 400, reason: "no sender for platform android"))
        #expect(refused[1] == .delivered(messageID: batch[1].messageID))
    }
}
