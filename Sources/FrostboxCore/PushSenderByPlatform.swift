/// One push port over several platforms: a batch is split by each push's platform, every part
/// handed to that platform's sender at once, and the outcomes merged back under the batch's
/// own indices. A push for a platform without a sender fails permanently.
public struct PushSenderByPlatform: PushSender {
    private let senders: [DevicePlatform: any PushSender]

    public init(_ senders: [DevicePlatform: any PushSender]) {
        self.senders = senders
    }

    public func send(_ batch: [PushNotification]) -> PushOutcomes {
        var parts: [DevicePlatform: (indices: [Int], pushes: [PushNotification])] = [:]
        var unsupported: [Int] = []
        for (index, push) in batch.enumerated() {
            guard senders[push.platform] != nil else {
                unsupported.append(index)
                continue
            }
            parts[push.platform, default: ([], [])].indices.append(index)
            parts[push.platform, default: ([], [])].pushes.append(push)
        }
        // One platform (the usual chunk): its sender's outcomes as they are.
        if unsupported.isEmpty, parts.count == 1, let (platform, part) = parts.first, let sender = senders[platform] {
            return sender.send(part.pushes)
        }
        let senders = self.senders
        let (parted, refused) = (parts, unsupported)
        return PushOutcomes { yield in
            for index in refused {
                yield(index, .permanentFailure(status: 400, reason: "no sender for platform \(batch[index].platform)"))
            }
            await withTaskGroup(of: Void.self) { group in
                for (platform, part) in parted {
                    guard let sender = senders[platform] else { continue }
                    group.addTask {
                        await sender.send(part.pushes).collect(into: ()) { _, index, outcome in
                            if part.indices.indices.contains(index) { yield(part.indices[index], outcome) }
                        }
                    }
                }
            }
        }
    }
}
