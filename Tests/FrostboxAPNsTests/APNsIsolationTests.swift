import FrostboxCore
import Testing

@testable import FrostboxAPNs

/// A push whose request makes the gateway reset the connection (mock-apns' `0dead…` tokens)
/// takes no other push down: what was lost with it goes again alone, and what is lost alone is
/// given up. (The pool's side of it: `HTTP2IsolationTests`.)
@Suite("APNs: a poison push is isolated")
struct APNsIsolationTests {
    @Test(
        "one poison token among 1,000 pushes through mock-apns: 999 delivered, the poison one given up as permanent after two losses alone",
        arguments: [1, 4])
    func poisonAmongAThousand(connections: Int) async throws {
        let harness = try await APNsHarness.start()
        var settings = APNsHarness.settings
        settings.maximumConnections = connections
        let router = try harness.router(settings: settings)
        let pushes = (0..<1_000).map { n in n == 500 ? alert(to: token("0dead", n)) : alert(to: token("a1", n)) }
        var outcomes: [Int: PushOutcome] = [:]
        for await (index, outcome) in router.send(pushes) { outcomes[index] = outcome }
        #expect(outcomes.count == 1_000)
        #expect(outcomes[500] == .permanentFailure(status: 0, reason: "ConnectionLostWhenSentAlone"))
        let delivered = outcomes.filter { if case .delivered = $0.value { true } else { false } }
        #expect(delivered.count == 999)
        let counters = await harness.mock.counters()
        #expect(counters.delivered == 999)
        #expect(counters.resets == 3, "sent with others once, then alone twice")
        try await harness.stop(router)
    }
}
