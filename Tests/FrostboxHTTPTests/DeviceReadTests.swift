import Foundation
import FrostboxCore
import HTTPTypes
import HummingbirdTesting
import Testing

/// `GET /v1/devices/{token}`: a device reads back what it registered.
@Suite("Device read route")
struct DeviceReadTests {
    static let token = "0123456789abcdef0123456789abcdef"

    @Test("GET answers 200 with what PUT stored, 404 for an unknown device and 400 for a bad token")
    func readBack() async throws {
        let harness = try RouteTestHarness()
        try await harness.test { client in
            #expect(try await client.send(.get, "/v1/devices/\(Self.token)").status == .notFound)
            let put = try await client.send(
                .put, "/v1/devices/\(Self.token)", json: #"{"topic": "fi.example.frost", "environment": "sandbox", "locale": "fi-FI"}"#)
            #expect(put.status == .created)
            let read = try await client.send(.get, "/v1/devices/\(Self.token.uppercased())")
            #expect(read.status == .ok)
            // Device data is kept by no cache.
            #expect(put.headers[.cacheControl] == "no-store")
            #expect(read.headers[.cacheControl] == "no-store")
            let subscribed = try await client.send(
                .post, "/v1/devices/\(Self.token)/subscriptions", json: #"{"latitude": 60.19, "longitude": 25.01, "name": "Home"}"#)
            #expect(subscribed.status == .created)
            #expect(subscribed.headers[.cacheControl] == "no-store")
            #expect(try await client.send(.get, "/v1/devices/\(Self.token)/subscriptions").headers[.cacheControl] == "no-store")
            #expect(read.json["token"] as? String == Self.token)
            #expect(read.json["topic"] as? String == "fi.example.frost")
            #expect(read.json["environment"] as? String == "sandbox")
            #expect(read.json["locale"] as? String == "fi-FI")
            #expect(String(buffer: read.body) == String(buffer: put.body))
            let bad = try await client.send(.get, "/v1/devices/a%2Fbc")
            #expect(bad.status == .badRequest)
            #expect(try await client.send(.delete, "/v1/devices/\(Self.token)").status == .noContent)
            #expect(try await client.send(.get, "/v1/devices/\(Self.token)").status == .notFound)
        }
    }
}
