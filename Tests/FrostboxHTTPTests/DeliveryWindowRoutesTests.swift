import Foundation
import FrostboxCore
import HTTPTypes
import HummingbirdTesting
import Testing

/// `settings.notify_after` and `settings.notify_before` on `POST /v1/devices/{token}/subscriptions`.
@Suite("Delivery windows on the subscription routes")
struct DeliveryWindowRoutesTests {
    static let token = "0123456789abcdef0123456789abcdef"
    static let path = "/v1/devices/\(token)/subscriptions"

    static func body(_ settings: String) -> String {
        #"{"latitude": 60.19, "longitude": 25.01, "name": "Home", "settings": \#(settings)}"#
    }

    @Test("POST stores the window; the answer and GET show it; without one (or null) there is none", arguments: RouteTestHarness.Kind.allCases)
    func roundTrip(kind: RouteTestHarness.Kind) async throws {
        let harness = try RouteTestHarness.make(kind)
        try await harness.test { client in
            let created = try await client.send(.post, Self.path, json: Self.body(#"{"notify_after": "16:00", "notify_before": "08:00"}"#))
            #expect(created.status == .created)
            let settings = created.json["settings"] as? [String: Any]
            #expect(settings?["notify_after"] as? String == "16:00")
            #expect(settings?["notify_before"] as? String == "08:00")

            let one = try await client.send(
                .post, Self.path,
                json: #"{"latitude": 60.2, "longitude": 25.0, "name": "Field", "settings": {"notify_after": "16:00", "notify_before": null}}"#)
            #expect(one.status == .created)
            let oneSettings = one.json["settings"] as? [String: Any]
            #expect(oneSettings?["notify_after"] as? String == "16:00")
            #expect(oneSettings?["notify_before"] == nil)

            let none = try await client.send(
                .post, Self.path, json: #"{"latitude": 60.3, "longitude": 25.0, "name": "Cabin", "settings": {"all_clear": true}}"#)
            let noneSettings = none.json["settings"] as? [String: Any]
            #expect(noneSettings?["notify_after"] == nil && noneSettings?["notify_before"] == nil)

            let list = try await client.send(.get, Self.path)
            let read = (list.json["subscriptions"] as? [[String: Any]])?.map { $0["settings"] as? [String: Any] }
            #expect(read?.map { $0?["notify_after"] as? String } == ["16:00", "16:00", nil])
            #expect(read?.map { $0?["notify_before"] as? String } == ["08:00", nil, nil])
        }
    }

    @Test(
        "bad windows are a 400 naming the field, and nothing is stored",
        arguments: [
            (#"{"notify_after": "16:00", "notify_before": "16:00"}"#, "settings.notify_before"),
            (#"{"notify_before": "00:00"}"#, "settings.notify_before"),
            (#"{"notify_after": "24:00"}"#, "settings.notify_after"),
            (#"{"notify_after": "4pm"}"#, "settings.notify_after"),
            (#"{"notify_after": "16:00", "notify_before": "8:00"}"#, "settings.notify_before"),
        ])
    func refused(settings: String, field: String) async throws {
        let harness = try RouteTestHarness()
        try await harness.test { client in
            let response = try await client.send(.post, Self.path, json: Self.body(settings))
            #expect(response.status == .badRequest)
            let error = response.json["error"] as? [String: Any]
            #expect(error?["code"] as? String == "invalid_field")
            #expect((error?["message"] as? String)?.hasPrefix(field + " ") == true)
            #expect(try await harness.count("subscription") == 0)
        }
    }

    @Test("equal bounds are refused with a message that says why", arguments: RouteTestHarness.Kind.allCases)
    func equalBounds(kind: RouteTestHarness.Kind) async throws {
        let harness = try RouteTestHarness.make(kind)
        try await harness.test { client in
            let response = try await client.send(.post, Self.path, json: Self.body(#"{"notify_after": "07:00", "notify_before": "07:00"}"#))
            #expect(response.status == .badRequest)
            let message = (response.json["error"] as? [String: Any])?["message"] as? String
            #expect(message == "settings.notify_before must differ from settings.notify_after (a window may cross midnight, e.g. 16:00 to 08:00)")
        }
    }

    @Test("a window of the wrong shape is a 400, not a 500", arguments: [#"{"notify_after": 16}"#, #"{"notify_before": ["08:00"]}"#])
    func wrongShape(settings: String) async throws {
        let harness = RouteTestHarness.inMemory()
        try await harness.test { client in
            let response = try await client.send(.post, Self.path, json: Self.body(settings))
            #expect(response.status == .badRequest)
            #expect(try await harness.count("subscription") == 0)
        }
    }
}
