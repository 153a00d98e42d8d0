import Foundation
import FrostboxCore
import HTTPTypes
import HummingbirdTesting
import Testing

/// The device routes over the in-memory stores (no SQLite); the lifecycle, the limit and
/// readiness also run over the whole app on SQLite.
@Suite("Device API routes")
struct DeviceRoutesTests {
    static let token = "0123456789abcdef0123456789abcdef"

    static func addLocation(
        _ token: String = token, lat: String = "\"60.17\"", lon: String = "\"24.94\"", name: String = "\"Helsinki\"", unit: String = "\"C\""
    ) -> String {
        #"{"token": "\#(token)", "location": {"latitude": \#(lat), "longitude": \#(lon), "name": \#(name), "unit": \#(unit)}}"#
    }

    @Test("POST /register answers 201 and is idempotent")
    func register() async throws {
        let harness = RouteTestHarness.inMemory()
        try await harness.test { client in
            let first = try await client.send(.post, "/register", json: #"{"token": "\#(Self.token)"}"#)
            #expect(first.status == .created)
            let second = try await client.send(.post, "/register", json: #"{"token": "<0123456789ABCDEF 0123456789ABCDEF>"}"#)
            #expect(second.status == .created)
            #expect(try await harness.count("device") == 1)
        }
    }

    @Test("POST /add_location with string coordinates stores numbers and box; duplicates do not add")
    func addLocationStrings() async throws {
        let harness = RouteTestHarness.inMemory()
        try await harness.test { client in
            let response = try await client.send(.post, "/add_location", json: Self.addLocation())
            #expect(response.status == .created)
            #expect(response.json["latitude"] as? Double == 60.17)
            #expect(response.json["longitude"] as? Double == 24.94)
            #expect(response.json["box"] as? String == "60.15#24.95")
            #expect(response.json["unit"] as? String == "C")
            #expect(response.json["created"] as? Bool == true)
            let again = try await client.send(.post, "/add_location", json: Self.addLocation(lat: "60.1700000001", lon: "24.94"))
            #expect(again.status == .created)
            #expect(again.json["created"] as? Bool == false)
            #expect(again.json["id"] as? Int == response.json["id"] as? Int)
            #expect(try await harness.count("subscription") == 1)
            // The unknown token was registered on the way.
            #expect(try await harness.count("device") == 1)
        }
    }

    @Test("POST /add_location accepts numbers and a missing or lower-case unit")
    func addLocationNumbers() async throws {
        let harness = RouteTestHarness.inMemory()
        try await harness.test { client in
            let body = #"{"token": "\#(Self.token)", "location": {"latitude": -33.87, "longitude": 151.21, "name": "Sydney"}}"#
            let response = try await client.send(.post, "/add_location", json: body)
            #expect(response.status == .created)
            #expect(response.json["unit"] as? String == "C")
            let f = try await client.send(.post, "/add_location", json: Self.addLocation(name: "\"Cabin\"", unit: "\"f\""))
            #expect(f.json["unit"] as? String == "F")
        }
    }

    @Test("POST /remove_location removes, and succeeds when there is nothing to remove")
    func removeLocation() async throws {
        let harness = RouteTestHarness.inMemory()
        try await harness.test { client in
            try await client.send(.post, "/add_location", json: Self.addLocation())
            let removed = try await client.send(.post, "/remove_location", json: Self.addLocation())
            #expect(removed.status == .ok)
            #expect(removed.json["removed"] as? Int == 1)
            let none = try await client.send(.post, "/remove_location", json: Self.addLocation())
            #expect(none.status == .ok)
            #expect(none.json["removed"] as? Int == 0)
            #expect(try await harness.count("subscription") == 0)
        }
    }

    @Test("versioned REST: PUT device, POST/GET/DELETE subscriptions, DELETE device", arguments: RouteTestHarness.Kind.allCases)
    func restLifecycle(_ kind: RouteTestHarness.Kind) async throws {
        let harness = try RouteTestHarness.make(kind)
        try await harness.test { client in
            let put = try await client.send(
                .put, "/v1/devices/\(Self.token)", json: #"{"topic": "fi.example.frost", "environment": "sandbox", "locale": "fi-FI"}"#)
            #expect(put.status == .created)
            #expect(put.json["environment"] as? String == "sandbox")
            let putAgain = try await client.send(.put, "/v1/devices/\(Self.token)")
            #expect(putAgain.status == .ok)
            #expect(putAgain.json["topic"] as? String == "fi.example.frost")

            let created = try await client.send(
                .post, "/v1/devices/\(Self.token)/subscriptions",
                json: #"{"latitude": "60.19", "longitude": 25.01, "name": "Home", "unit": "F", "settings": {"freeze_c": -1, "all_clear": true}}"#)
            #expect(created.status == .created)
            let id = try #require(created.json["id"] as? Int)
            #expect(created.json["box"] as? String == "60.20#25.00")
            #expect((created.json["settings"] as? [String: Any])?["freeze_c"] as? Double == -1)
            let duplicate = try await client.send(
                .post, "/v1/devices/\(Self.token)/subscriptions", json: #"{"latitude": 60.19, "longitude": 25.01, "name": "Home"}"#)
            #expect(duplicate.status == .ok)

            let list = try await client.send(.get, "/v1/devices/\(Self.token)/subscriptions")
            #expect(list.status == .ok)
            #expect((list.json["subscriptions"] as? [[String: Any]])?.count == 1)

            #expect(try await client.send(.delete, "/v1/devices/\(Self.token)/subscriptions/\(id)").status == .noContent)
            #expect(try await client.send(.delete, "/v1/devices/\(Self.token)/subscriptions/\(id)").status == .notFound)
            try await client.send(.post, "/v1/devices/\(Self.token)/subscriptions", json: #"{"latitude": 1, "longitude": 2, "name": "X"}"#)
            #expect(try await client.send(.delete, "/v1/devices/\(Self.token)").status == .noContent)
            #expect(try await harness.count("device") == 0)
            #expect(try await harness.count("subscription") == 0)
            #expect(try await client.send(.get, "/v1/devices/\(Self.token)/subscriptions").status == .notFound)
            #expect(try await client.send(.delete, "/v1/devices/\(Self.token)").status == .notFound)
        }
    }

    @Test("more subscriptions than the per-device limit answer 409", arguments: RouteTestHarness.Kind.allCases)
    func subscriptionLimit(_ kind: RouteTestHarness.Kind) async throws {
        let harness = try RouteTestHarness.make(kind)
        try await harness.test { client in
            for i in 0..<5 {
                #expect(try await client.send(.post, "/add_location", json: Self.addLocation(name: "\"p\(i)\"")).status == .created)
            }
            let over = try await client.send(.post, "/add_location", json: Self.addLocation(name: "\"p5\""))
            #expect(over.status == .conflict)
            #expect(over.errorCode == "subscription_limit")
            #expect(try await harness.count("subscription") == 5)
        }
    }

    static let badAddLocations: [(String, String, String)] = [
        ("malformed JSON", #"{"token": "#, "malformed_json"),
        ("not an object", #"[1, 2]"#, "invalid_body"),
        ("empty body", "", "missing_body"),
        ("missing token", #"{"location": {"latitude": 1, "longitude": 2, "name": "x"}}"#, "missing_field"),
        ("missing location", #"{"token": "0123456789abcdef"}"#, "missing_field"),
        ("missing name", #"{"token": "0123456789abcdef", "location": {"latitude": 1, "longitude": 2}}"#, "missing_field"),
        ("null latitude", #"{"token": "0123456789abcdef", "location": {"latitude": null, "longitude": 2, "name": "x"}}"#, "missing_field"),
        ("token is a number", #"{"token": 123, "location": {"latitude": 1, "longitude": 2, "name": "x"}}"#, "invalid_field"),
        ("latitude is a bool", addLocation(lat: "true"), "invalid_field"),
        ("latitude is text", addLocation(lat: "\"north\""), "invalid_coordinate"),
        ("latitude is hex", addLocation(lat: "\"0x10\""), "invalid_coordinate"),
        ("latitude nan", addLocation(lat: "\"nan\""), "invalid_coordinate"),
        ("latitude inf", addLocation(lat: "\"1e999\""), "invalid_coordinate"),
        ("latitude huge number", addLocation(lat: "1e999"), "invalid_field"),
        ("latitude > 90", addLocation(lat: "90.0001"), "invalid_coordinate"),
        ("latitude < -90", addLocation(lat: "\"-91\""), "invalid_coordinate"),
        ("longitude > 180", addLocation(lon: "180.5"), "invalid_coordinate"),
        ("longitude < -180", addLocation(lon: "\"-180.01\""), "invalid_coordinate"),
        ("empty name", addLocation(name: "\"\""), "invalid_name"),
        ("blank name", addLocation(name: "\"   \""), "invalid_name"),
        ("long name", addLocation(name: "\"\(String(repeating: "a", count: 201))\""), "invalid_name"),
        ("control character", addLocation(name: #""Ho\u0007me""#), "invalid_name"),
        ("name is a number", addLocation(name: "5"), "invalid_field"),
        ("bad unit", addLocation(unit: "\"K\""), "invalid_unit"),
        ("short token", addLocation("0123456789abcde"), "invalid_token"),
        ("odd token", addLocation("0123456789abcdef0"), "invalid_token"),
        ("non-hex token", addLocation("0123456789abcdeg"), "invalid_token"),
        ("token too long", addLocation(String(repeating: "ab", count: 101)), "invalid_token"),
    ]

    @Test("bad /add_location bodies get a 400 JSON error and change nothing", arguments: badAddLocations)
    func badAddLocation(label: String, body: String, code: String) async throws {
        let harness = RouteTestHarness.inMemory()
        try await harness.test { client in
            let response = try await client.send(.post, "/add_location", json: body)
            #expect(response.status == .badRequest, "\(label)")
            #expect(response.errorCode == code, "\(label): \(String(buffer: response.body))")
            #expect(response.headers[.contentType]?.hasPrefix("application/json") == true)
            #expect(try await harness.count("device") == 0)
            #expect(try await harness.count("subscription") == 0)
        }
    }

    @Test("bad bodies on /register, /remove_location and the REST routes get 400s")
    func badOtherBodies() async throws {
        let harness = RouteTestHarness.inMemory()
        try await harness.test { client in
            let cases: [(HTTPRequest.Method, String, String?, String)] = [
                (.post, "/register", #"{"token": "xyz"}"#, "invalid_token"),
                (.post, "/register", #"{}"#, "missing_field"),
                (.post, "/register", "nope", "malformed_json"),
                (.post, "/remove_location", Self.addLocation(lat: "\"95\""), "invalid_coordinate"),
                (.post, "/remove_location", Self.addLocation(unit: "\"X\""), "invalid_unit"),
                (.put, "/v1/devices/nothex", nil, "invalid_token"),
                (.put, "/v1/devices/\(Self.token)", #"{"environment": "staging"}"#, "invalid_field"),
                (.put, "/v1/devices/\(Self.token)", #"{"topic": "bad topic!"}"#, "invalid_field"),
                (.put, "/v1/devices/\(Self.token)", #"{"locale": "fi FI"}"#, "invalid_field"),
                (.put, "/v1/devices/\(Self.token)", #"{"topic": 5}"#, "invalid_field"),
                (
                    .post, "/v1/devices/\(Self.token)/subscriptions", #"{"latitude": 1, "longitude": 2, "name": "x", "settings": {"rule": "magic"}}"#,
                    "invalid_field"
                ),
                (
                    .post, "/v1/devices/\(Self.token)/subscriptions", #"{"latitude": 1, "longitude": 2, "name": "x", "settings": {"freeze_c": 99}}"#,
                    "invalid_field"
                ),
                (.post, "/v1/devices/\(Self.token)/subscriptions", #"{"latitude": 1, "name": "x"}"#, "missing_field"),
                (.delete, "/v1/devices/\(Self.token)/subscriptions/abc", nil, "invalid_field"),
                (.delete, "/v1/devices/\(Self.token)/subscriptions/-3", nil, "invalid_field"),
                (.get, "/v1/devices/z%20z/subscriptions", nil, "invalid_token"),
                (.put, "/v1/devices/fcm:token_1", nil, "invalid_token"),
                (.put, "/v1/devices/fcm:token_1", #"{"platform": "windows"}"#, "invalid_field"),
                (.put, "/v1/devices/fcm%20token", #"{"platform": "android"}"#, "invalid_token"),
                (.put, "/v1/devices/fcm:token_1", #"{"platform": "android", "environment": "sandbox"}"#, "invalid_field"),
                (.put, "/v1/devices/fcm:token_1", #"{"platform": "android", "app": "a.b", "topic": "c.d"}"#, "invalid_field"),
                (.put, "/v1/devices/fcm:token_1", #"{"platform": "android", "app": "bad app"}"#, "invalid_field"),
                (.post, "/register", #"{"token": "fcm:token_1"}"#, "invalid_token"),
                (.post, "/register", #"{"token": "fcm token", "platform": "android"}"#, "invalid_token"),
            ]
            for (method, uri, body, code) in cases {
                let response = try await client.send(method, uri, json: body)
                #expect(response.status == .badRequest, "\(method) \(uri) \(body ?? "")")
                #expect(response.errorCode == code, "\(method) \(uri): \(String(buffer: response.body))")
            }
            #expect(try await harness.count("device") == 0)
            #expect(try await harness.count("subscription") == 0)
        }
    }

    @Test("bodies over 64 KiB get a 413 JSON error")
    func tooLarge() async throws {
        let harness = RouteTestHarness.inMemory()
        try await harness.test { client in
            let body = Self.addLocation(name: "\"\(String(repeating: "a", count: 70_000))\"")
            let response = try await client.send(.post, "/add_location", json: body)
            #expect(response.status == .contentTooLarge)
            #expect(response.errorCode == "payload_too_large")
            #expect(try await harness.count("subscription") == 0)
        }
    }

    @Test("unknown routes get a JSON 404, wrong methods a JSON 405 with Allow")
    func notFoundAndMethod() async throws {
        let harness = RouteTestHarness.inMemory()
        try await harness.test { client in
            let missing = try await client.send(.get, "/nope")
            #expect(missing.status == .notFound)
            #expect(missing.errorCode == "not_found")
            let wrong = try await client.send(.get, "/register")
            #expect(wrong.status == .methodNotAllowed)
            #expect(wrong.errorCode == "method_not_allowed")
            #expect(wrong.headers[.allow] == "POST")
            let wrongParam = try await client.send(.patch, "/v1/devices/\(Self.token)")
            #expect(wrongParam.status == .methodNotAllowed)
            #expect(wrongParam.headers[.allow] == "DELETE, GET, HEAD, PUT")
        }
    }

    @Test("HEAD answers wherever GET does: its status and headers, no body")
    func head() async throws {
        let harness = RouteTestHarness.inMemory()
        try await harness.test { client in
            let get = try await client.send(.get, "/health")
            let head = try await client.send(.head, "/health")
            #expect(head.status == .ok && get.status == .ok)
            #expect(head.body.readableBytes == 0 && get.body.readableBytes > 0)
            #expect(head.headers[.contentType] == get.headers[.contentType])
            #expect(try await client.send(.put, "/v1/devices/\(Self.token)").status == .created)
            #expect(try await client.send(.head, "/v1/devices/\(Self.token)").status == .ok)
            #expect(try await client.send(.head, "/v1/devices/fedcba9876543210fedcba9876543210").status == .notFound)
            #expect(try await client.send(.head, "/register").status == .methodNotAllowed, "no HEAD where there is no GET")
        }
    }

    @Test("health and readiness (ready once the SQLite schema is migrated)")
    func health() async throws {
        let harness = try RouteTestHarness()
        try await harness.test { client in
            let health = try await client.send(.get, "/health")
            #expect(health.status == .ok)
            let ready = try await client.send(.get, "/ready")
            #expect(ready.status == .ok)
            #expect(ready.json["status"] as? String == "ready")
        }
    }
}
