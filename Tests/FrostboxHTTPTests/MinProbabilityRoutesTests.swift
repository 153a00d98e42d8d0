import Foundation
import FrostboxCore
import HTTPTypes
import HummingbirdTesting
import Testing

/// `settings.min_probability` on `POST /v1/devices/{token}/subscriptions` (issue #47).
@Suite("The chance of frost a subscription is alerted at")
struct MinProbabilityRoutesTests {
    static let token = "0123456789abcdef0123456789abcdef"
    static let path = "/v1/devices/\(token)/subscriptions"

    static func body(_ name: String, _ settings: String) -> String {
        #"{"latitude": 60.19, "longitude": 25.01, "name": "\#(name)", "settings": \#(settings)}"#
    }

    @Test("POST stores it (0 and 1 included); the answer and GET show it; absent or null, none is stored", arguments: RouteTestHarness.Kind.allCases)
    func roundTrip(kind: RouteTestHarness.Kind) async throws {
        let harness = try RouteTestHarness.make(kind)
        try await harness.test { client in
            for (name, value) in [("Home", "0.7"), ("Shed", "0"), ("Field", "1"), ("Cabin", "null")] {
                let created = try await client.send(.post, Self.path, json: Self.body(name, #"{"min_probability": \#(value)}"#))
                #expect(created.status == .created)
            }
            let list = try await client.send(.get, Self.path)
            let read = (list.json["subscriptions"] as? [[String: Any]])?.map { ($0["settings"] as? [String: Any])?["min_probability"] as? Double }
            #expect(read == [0.7, 0, 1, nil])
        }
    }

    @Test("outside 0…1, or not a number: a 400 naming the field, nothing stored", arguments: ["1.5", "-0.1", "\"70%\"", "true"])
    func refused(value: String) async throws {
        let harness = try RouteTestHarness()
        try await harness.test { client in
            let response = try await client.send(.post, Self.path, json: Self.body("Home", #"{"min_probability": \#(value)}"#))
            #expect(response.status == .badRequest)
            let error = response.json["error"] as? [String: Any]
            #expect((error?["message"] as? String)?.contains("min_probability") == true)
            #expect(try await harness.count("subscription") == 0)
        }
    }
}
