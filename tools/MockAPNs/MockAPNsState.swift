import Foundation
import Synchronization

/// Everything the double records, shared by its connections.
final class MockAPNsState: Sendable {
    private struct Records {
        var counters = MockAPNsCounters()
        var deliveries: [MockAPNsDelivery] = []
        var flakySeen: Set<String> = []
        var nextConnection = 0
    }

    private let records = Mutex(Records())
    private let keepDeliveries: Bool
    private let log: FileHandle?
    private let encoder: JSONEncoder

    init(keepDeliveries: Bool, deliveriesPath: String?) throws {
        self.keepDeliveries = keepDeliveries
        if let deliveriesPath {
            if !FileManager.default.fileExists(atPath: deliveriesPath) {
                _ = FileManager.default.createFile(atPath: deliveriesPath, contents: nil)
            }
            guard let handle = FileHandle(forWritingAtPath: deliveriesPath) else {
                throw MockAPNsError("cannot write deliveries to \(deliveriesPath)")
            }
            handle.seekToEndOfFile()
            log = handle
        } else {
            log = nil
        }
        encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    }

    func connectionOpened() -> Int {
        records.withLock {
            $0.counters.connections += 1
            $0.nextConnection += 1
            return $0.nextConnection
        }
    }

    func requestReceived(messageID: String?) {
        records.withLock {
            $0.counters.requests += 1
            if keepDeliveries, let messageID { $0.counters.requestsByID[messageID, default: 0] += 1 }
        }
    }

    func streamReset() { records.withLock { $0.counters.streamResets += 1 } }

    func streamsOpenAfterLimitChange(_ count: Int) {
        records.withLock {
            $0.counters.peakConcurrentStreamsAfterLimitChange = max($0.counters.peakConcurrentStreamsAfterLimitChange, count)
        }
    }

    func rejected(_ reason: String) { records.withLock { $0.counters.rejected[reason, default: 0] += 1 } }

    func reset() { records.withLock { $0.counters.resets += 1 } }

    func goAwaySent() { records.withLock { $0.counters.goAways += 1 } }

    func streamsOpen(_ count: Int) {
        records.withLock { $0.counters.peakConcurrentStreams = max($0.counters.peakConcurrentStreams, count) }
    }

    /// True the first time `messageID` asks for the flaky fault.
    func firstFlakyAttempt(_ messageID: String) -> Bool {
        records.withLock { $0.flakySeen.insert(messageID).inserted }
    }

    /// A 200 answer was written: the push counts as delivered.
    func delivered(_ delivery: MockAPNsDelivery) {
        let line: Data? = log == nil ? nil : (try? encoder.encode(delivery)).map { $0 + Data([0x0A]) }
        records.withLock {
            $0.counters.delivered += 1
            if keepDeliveries { $0.deliveries.append(delivery) }
            if let line { log?.write(line) }
        }
    }

    func snapshot(providerTokens: Int) -> (MockAPNsCounters, [MockAPNsDelivery]) {
        records.withLock {
            var counters = $0.counters
            counters.providerTokens = providerTokens
            return (counters, $0.deliveries)
        }
    }

    func clearDeliveries() { records.withLock { $0.deliveries.removeAll() } }

    func close() { try? log?.close() }
}

/// A failure of the double itself (not an APNs answer).
public struct MockAPNsError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
