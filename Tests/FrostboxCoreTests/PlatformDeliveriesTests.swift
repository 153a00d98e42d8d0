import Foundation
import FrostboxCore
import Testing

@Suite("A run's deliveries by platform")
struct PlatformDeliveriesTests {
    @Test("a shared run's parts add up by platform; zero counts are not kept")
    func combining() {
        var one = NotifyRunSummary(id: 1, startedAt: 10)
        one.byPlatform.delivered(.ios, 3)
        one.byPlatform.failed(.android)
        var two = NotifyRunSummary(id: 1, startedAt: 11)
        two.byPlatform.delivered(.android, 2)
        two.byPlatform.delivered(.ios, 0)
        let total = NotifyRunSummary.combining([one, two], runID: 1, boxes: 2)
        #expect(total.byPlatform == PlatformDeliveries([.ios: .init(delivered: 3), .android: .init(delivered: 2, failed: 1)]))
        #expect(total.byPlatform.description == "android=2/1 ios=3/0")
        #expect(PlatformDeliveries([.ios: .init()]).isEmpty)
    }

    @Test("a summary stored before runs were counted by platform (a shared run's part as JSON) reads with none")
    func olderPartsDecode() throws {
        var part = NotifyRunSummary(id: 4, startedAt: 10)
        part.byPlatform.delivered(.ios, 5)
        var json = try JSONSerialization.jsonObject(with: try JSONEncoder().encode(part)) as! [String: Any]
        #expect(try JSONDecoder().decode(NotifyRunSummary.self, from: try JSONEncoder().encode(part)) == part)
        json.removeValue(forKey: "byPlatform")
        let older = try JSONDecoder().decode(NotifyRunSummary.self, from: try JSONSerialization.data(withJSONObject: json))
        #expect(older.byPlatform.isEmpty)
        #expect(older.id == 4)
    }
}
