import FrostboxCore

/// The contract of the `PushSender` port, checked the same way for every implementation (the
/// APNs router against mock-apns, the log-only sink, the platform router, the test doubles):
/// each check returns what it found wrong, and a test expects that to be empty.
///
/// 1. A batch of N pushes gets exactly one outcome per push, indices 0..<N each once, and the
///    sequence then ends.
/// 2. An empty batch ends at once without an outcome.
/// 3. One push sent alone gets the outcome the port gives it in a batch.
/// 4. A reader that stops the sending at once still reads an outcome for every push, and the
///    sequence ends: answers are never dropped, pushes never left without one.
/// 5. A verification push to a token gets the outcome an alert to it gets: the gateway
///    judges the token the same way whatever the push carries.
public enum PushSenderContract {
    /// Every check over pushes to `tokens` (at least two), `expected` being the outcome the
    /// port gives each of them when nothing stops it. With `gatewayNamesMessages` (FCM names
    /// each message it accepts), any delivered outcome matches an expected delivery.
    public static func violations(
        of sender: any PushSender, tokens: [DeviceToken], platform: DevicePlatform = .ios, app: String? = nil,
        gatewayNamesMessages: Bool = false, verification expectedVerification: ((PushNotification) -> PushOutcome)? = nil,
        expected: (PushNotification) -> PushOutcome
    ) async -> [String] {
        func matches(_ outcome: PushOutcome, _ wanted: PushOutcome) -> Bool {
            if gatewayNamesMessages, case .delivered = outcome, case .delivered = wanted { return true }
            return outcome == wanted
        }
        var found: [String] = []
        let batch = tokens.enumerated().map { index, token in push(to: token, platform: platform, app: app, number: index) }

        // 1. One outcome per push, and the outcome the port gives it.
        let outcomes = await sender.send(batch).collect(into: [(Int, PushOutcome)]()) { $0.append(($1, $2)) }
        let indices = outcomes.map(\.0).sorted()
        if indices != Array(batch.indices) {
            found.append("a batch of \(batch.count) got outcomes for indices \(indices)")
        }
        for (index, outcome) in outcomes where batch.indices.contains(index) && !matches(outcome, expected(batch[index])) {
            found.append("push \(index): \(outcome), expected \(expected(batch[index]))")
        }

        // 2. The empty batch.
        let none = await sender.send([]).collect(into: 0) { count, _, _ in count += 1 }
        if none != 0 { found.append("an empty batch got \(none) outcome(s)") }

        // 3. One push alone.
        let alone = push(to: tokens[0], platform: platform, app: app, number: 1_000)
        let single = await sender.send(alone)
        if !matches(single, expected(alone)) { found.append("a push sent alone: \(single), expected \(expected(alone))") }

        // 4. Stopped at once: still one outcome per push, then the end.
        let stoppedBatch = tokens.enumerated().map { index, token in push(to: token, platform: platform, app: app, number: 2_000 + index) }
        let stopped = sender.send(stoppedBatch)
        stopped.stopSending()
        let afterStop = await stopped.collect(into: [Int]()) { indices, index, _ in indices.append(index) }.sorted()
        if afterStop != Array(stoppedBatch.indices) {
            found.append("a stopped batch of \(stoppedBatch.count) got outcomes for indices \(afterStop)")
        }

        // 5. Verification pushes.
        let verifications = tokens.enumerated().map { index, token in
            var alert = push(to: token, platform: platform, app: app, number: 3_000 + index)
            let verification = PushNotification.verification(
                token: token, platform: platform, app: app, environment: nil, messageID: alert.messageID, expiration: alert.expiration ?? 0)
            alert.expiration = verification.expiration
            return (verification, alert)
        }
        let verified = await sender.send(verifications.map(\.0)).collect(into: [(Int, PushOutcome)]()) { $0.append(($1, $2)) }
        if verified.map(\.0).sorted() != Array(verifications.indices) {
            found.append("a batch of \(verifications.count) verification pushes got outcomes for indices \(verified.map(\.0).sorted())")
        }
        // A verification push is answered as an alert to the same token would be, unless the port says otherwise.
        func wanted(_ index: Int) -> PushOutcome { expectedVerification?(verifications[index].0) ?? expected(verifications[index].1) }
        for (index, outcome) in verified where verifications.indices.contains(index) && !matches(outcome, wanted(index)) {
            found.append("verification push \(index): \(outcome), expected \(wanted(index))")
        }
        return found
    }

    /// A frost alert to `token` with a message id made from `number`.
    public static func push(to token: DeviceToken, platform: DevicePlatform = .ios, app: String? = nil, number: Int) -> PushNotification {
        let tail = String(number, radix: 16)
        let id = "00000000-0000-4000-8000-" + String(repeating: "0", count: 12 - tail.count) + tail
        return PushNotification(
            token: token, platform: platform, app: app, messageID: id, collapseID: "frost-contract",
            content: AlertContent(
                title: "Frost", body: "Contract check", bodyLocKey: "FROST_FREEZE_TONIGHT", bodyLocArgs: ["Home"], sound: "default",
                group: "frost-contract", interruption: .timeSensitive,
                frost: FrostData(box: "60.20,25.00", night: "2026-11-24", level: "freeze", minimumC: -2)))
    }
}
