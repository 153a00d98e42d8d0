import Foundation
import FrostboxCore
import FrostboxDoubles
import FrostboxHTTP
import Testing

@testable import FrostboxApp

/// `serve --demo` and its status page: a token made for the run (loopback only) and printed
/// with the page's address, and a map that shows the verdicts the demo's alerts came from.
@Suite("Demo status page")
struct DemoStatusTests {
    @Test("demo mode on loopback makes a fresh 128-bit admin token and a line with the page's address")
    func tokenOnLoopback() throws {
        let first = FrostboxSettings().demoMode()
        let token = try #require(first.demoAdminToken)
        #expect(token.count == 32 && token.allSatisfy(\.isHexDigit), "\(token)")
        #expect(first.adminToken?.matches(token) == true)
        #expect(FrostboxSettings().demoMode().demoAdminToken != token, "a new token per run")
        let line = try #require(first.demoStatusLine(port: 8123))
        #expect(line.hasPrefix("status page: http://127.0.0.1:8123/status"))
        #expect(line.contains(token))
    }

    @Test("beyond loopback, or with a configured token, the demo makes none and prints nothing")
    func noTokenOtherwise() {
        var open = FrostboxSettings()
        open.host = "0.0.0.0"
        #expect(open.demoMode().adminToken == nil)
        #expect(open.demoMode().demoStatusLine(port: 8080) == nil)
        var configured = FrostboxSettings()
        configured.adminToken = AdminToken("configured-token-0123456789")
        let demo = configured.demoMode()
        #expect(demo.demoAdminToken == nil)
        #expect(demo.adminToken?.matches("configured-token-0123456789") == true)
        var ipv6 = FrostboxSettings()
        ipv6.host = "::1"
        #expect(ipv6.demoMode().demoStatusLine(port: 9)?.hasPrefix("status page: http://[::1]:9/status") == true)
    }

    @Test("the demo's map shows each box's verdict from the scenario, not 'No forecast yet'")
    func mapShowsScenario() async throws {
        let box = GeoBox(try Coordinate(latitude: 60.19, longitude: 25.01))
        let source = InMemoryBoxMapSource([SubscribedBox(box: box, subscribers: 1)])
        let now: Int64 = 1_795_516_200
        let plain = StatusBoard(source: source, forecasts: InMemoryForecastCache(), rule: .default)
        #expect(try await plain.entries(now: now).map(\.mapClass) == [.noForecast])
        let demo = StatusBoard(source: source, forecasts: InMemoryForecastCache(), rule: .default, scenario: DemoForecastProvider())
        let entry = try #require(try await demo.entries(now: now).first)
        #expect(entry.mapClass == .hardFreeze)
        #expect(entry.tonight?.minimumC == -4)
    }
}
