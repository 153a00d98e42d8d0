import Foundation
import FrostboxCore
import HTTPTypes
import HummingbirdTesting
import Testing

/// `quiet_hours` and `hard_freeze_breaks_quiet_hours` on `PUT /v1/devices/{token}`.
@Suite("Quiet hours on the device routes")
struct QuietHoursRoutesTests {
    static let token = "0123456789abcdef0123456789abcdef"
    static let path = "/v1/devices/\(token)"

    @Test("PUT sets quiet hours and break-through, GET reads them back; absent keeps them, null removes them")
    func setKeepClear() async throws {
        let harness = try RouteTestHarness()
        try await harness.test { client in
            let plain = try await client.send(.put, Self.path)
            #expect(plain.status == .created)
            #expect(plain.json["quiet_hours"] is NSNull)
            #expect(plain.json["hard_freeze_breaks_quiet_hours"] as? Bool == false)

            let set = try await client.send(
                .put, Self.path, json: #"{"quiet_hours": {"start": "22:00", "end": "07:00"}, "hard_freeze_breaks_quiet_hours": true}"#)
            #expect(set.status == .ok)
            #expect(set.json["quiet_hours"] as? [String: String] == ["start": "22:00", "end": "07:00"])
            #expect(set.json["hard_freeze_breaks_quiet_hours"] as? Bool == true)

            let kept = try await client.send(.put, Self.path, json: #"{"locale": "fi-FI"}"#)
            #expect(kept.json["quiet_hours"] as? [String: String] == ["start": "22:00", "end": "07:00"])
            #expect(kept.json["hard_freeze_breaks_quiet_hours"] as? Bool == true)

            let cleared = try await client.send(.put, Self.path, json: #"{"quiet_hours": null, "hard_freeze_breaks_quiet_hours": false}"#)
            #expect(cleared.json["quiet_hours"] is NSNull)
            #expect(cleared.json["hard_freeze_breaks_quiet_hours"] as? Bool == false)
            #expect(String(buffer: try await client.send(.get, Self.path).body) == String(buffer: cleared.body))
        }
    }

    @Test(
        "bad quiet hours are a 400 naming the field, and nothing is stored",
        arguments: [
            (#"{"quiet_hours": {"start": "22:00", "end": "22:00"}}"#, "quiet_hours"),
            (#"{"quiet_hours": {"start": "24:00", "end": "07:00"}}"#, "quiet_hours.start"),
            (#"{"quiet_hours": {"start": "22:00", "end": "7:00"}}"#, "quiet_hours.end"),
            (#"{"quiet_hours": {"start": "22:00", "end": "07:00:00"}}"#, "quiet_hours.end"),
        ])
    func refused(body: String, field: String) async throws {
        let harness = try RouteTestHarness()
        try await harness.test { client in
            let response = try await client.send(.put, Self.path, json: body)
            #expect(response.status == .badRequest)
            let error = response.json["error"] as? [String: Any]
            #expect(error?["code"] as? String == "invalid_field")
            #expect((error?["message"] as? String)?.hasPrefix(field + " ") == true)
            #expect(try await harness.count("device") == 0)
        }
    }

    @Test(
        "quiet hours of the wrong shape are a 400, not a 500",
        arguments: [
            #"{"quiet_hours": {"start": "22:00"}}"#, #"{"quiet_hours": "22:00-07:00"}"#, #"{"quiet_hours": {"start": 22, "end": 7}}"#,
            #"{"hard_freeze_breaks_quiet_hours": "yes"}"#,
        ])
    func wrongShape(body: String) async throws {
        let harness = try RouteTestHarness()
        try await harness.test { client in
            let response = try await client.send(.put, Self.path, json: body)
            #expect(response.status == .badRequest)
            #expect(try await harness.count("device") == 0)
        }
    }
}
