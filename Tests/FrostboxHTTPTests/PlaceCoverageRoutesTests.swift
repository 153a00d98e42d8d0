import Foundation
import FrostboxApp
import FrostboxCore
import FrostboxDoubles
import FrostboxHTTP
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// A search over little (the bundled extract alone) says so in the answer's `meta`.
@Suite("Place search coverage hint")
struct PlaceCoverageRoutesTests {
    /// Searches `new york` over an empty index whose coverage hint is `hint`, and checks the answer.
    func search(hint: String?, _ check: @escaping @Sendable (TestResponse) -> Void) async throws {
        let api = FrostboxAPI(
            groups: FrostboxApplication.publicRoutes(
                subscriptions: InMemorySubscriptionStore(), places: InMemoryPlaceIndex([]), clock: { 1_700_000_000 }, ready: { true },
                placeCoverage: { hint }))
        let app = Application(router: api.makeRouter(), logger: Logger(label: "test"))
        try await app.test(.router) { client in
            let response = try await client.send(.get, "/v1/places?q=new+york")
            #expect(response.status == .ok)
            check(response)
        }
    }

    @Test("an empty answer over the bundled extract carries meta.hint; a fuller index answers no meta")
    func hint() async throws {
        try await search(hint: "places cover only the bundled Nordic extract (…); to search the world, import GeoNames") { response in
            #expect((response.json["results"] as? [Any])?.isEmpty == true)
            #expect((response.json["meta"] as? [String: String])?["hint"]?.hasPrefix("places cover only the bundled Nordic extract") == true)
        }
        try await search(hint: nil) { response in
            #expect(response.json["meta"] == nil)
            #expect(response.json["results"] != nil)
        }
    }
}
