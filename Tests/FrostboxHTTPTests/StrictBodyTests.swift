import Foundation
import FrostboxCore
import HTTPTypes
import HummingbirdTesting
import Testing

@testable import FrostboxHTTP

/// Nothing is silently taken: a member the versioned routes do not read, or a key sent twice,
/// is a 400 naming it; the legacy routes take the existing app's bodies as they come.
@Suite("Unknown and repeated fields in request bodies")
struct StrictBodyTests {
    static let token = "0123456789abcdef0123456789abcdef"
    static let device = "/v1/devices/\(token)"
    static let subscriptions = "/v1/devices/\(token)/subscriptions"

    static func message(_ response: TestResponse) -> String {
        ((response.json["error"] as? [String: Any])?["message"] as? String) ?? ""
    }

    @Test("a misspelt settings member is a 400 naming it with a suggestion, and no subscription is stored")
    func misspeltSettings() async throws {
        let harness = try RouteTestHarness()
        try await harness.test { client in
            #expect(try await client.send(.put, Self.device).status == .created)
            let response = try await client.send(
                .post, Self.subscriptions, json: #"{"latitude": 60.19, "longitude": 25.01, "name": "Home", "setings": {"freeze_c": -1}}"#)
            #expect(response.status == .badRequest)
            #expect(response.errorCode == "unknown_field")
            #expect(Self.message(response).contains("'setings'"))
            #expect(Self.message(response).contains("did you mean 'settings'?"))
            #expect(try await harness.count("subscription") == 0)
        }
    }

    @Test(
        "unknown members at every level of the versioned bodies are 400 unknown_field, naming the field",
        arguments: [
            (HTTPRequest.Method.post, subscriptions, #"{"latitude": 1, "longitude": 2, "name": "A", "settings": {"freez_c": -1}}"#, "'settings.freez_c'"),
            (.post, subscriptions, #"{"latitude": 1, "longitude": 2, "name": "A", "colour": "red", "size": 3}"#, "'colour', 'size'"),
            (.put, device, #"{"platfrom": "android"}"#, "'platfrom'"),
            (.put, device, #"{"quiet_hours": {"start": "22:00", "end": "07:00", "days": "mon"}}"#, "'quiet_hours.days'"),
        ])
    func unknownFields(method: HTTPRequest.Method, path: String, body: String, named: String) async throws {
        let harness = try RouteTestHarness()
        try await harness.test { client in
            if path == Self.subscriptions { #expect(try await client.send(.put, Self.device).status == .created) }
            let response = try await client.send(method, path, json: body)
            #expect(response.status == .badRequest)
            #expect(response.errorCode == "unknown_field")
            #expect(Self.message(response).contains(named), "\(Self.message(response))")
        }
    }

    @Test(
        "a key sent twice is 400 duplicate_field, at any level",
        arguments: [
            (HTTPRequest.Method.put, device, #"{"locale": "fi-FI", "locale": "sv-FI"}"#, "'locale'"),
            (.post, subscriptions, #"{"latitude": 1, "longitude": 2, "name": "A", "settings": {"freeze_c": -1, "freeze_c": -3}}"#, "'settings.freeze_c'"),
            (.post, subscriptions, #"{"latitude": 1, "longitude": 2, "name": "A", "n\u0061me": "B"}"#, "'name'"),
            (.post, "/register", #"{"token": "\#(token)", "token": "fedcba9876543210fedcba9876543210"}"#, "'token'"),
        ])
    func duplicateKeys(method: HTTPRequest.Method, path: String, body: String, named: String) async throws {
        let harness = try RouteTestHarness()
        try await harness.test { client in
            if path == Self.subscriptions { #expect(try await client.send(.put, Self.device).status == .created) }
            let devices = try await harness.count("device")
            let response = try await client.send(method, path, json: body)
            #expect(response.status == .badRequest)
            #expect(response.errorCode == "duplicate_field")
            #expect(Self.message(response).contains(named), "\(Self.message(response))")
            #expect(try await harness.count("device") == devices)
            #expect(try await harness.count("subscription") == 0)
        }
    }

    @Test("the admin push-test body is checked too: an unknown member is named")
    func pushTestBody() throws {
        #expect(
            throws: APIError(
                .badRequest, code: "unknown_field",
                "unknown field 'titel' (did you mean 'title'?); the body takes app, body, environment, platform, title, token, topic")
        ) {
            try JSONBody.decode(PushTestBody.self, from: Data(#"{"token": "\#(Self.token)", "titel": "x"}"#.utf8))
        }
    }

    @Test("the legacy routes still take a member the existing app adds")
    func legacyLenient() async throws {
        let harness = try RouteTestHarness()
        try await harness.test { client in
            let register = try await client.send(.post, "/register", json: #"{"token": "\#(Self.token)", "app_version": "1.4"}"#)
            #expect(register.status == .created)
            let location = #"{"latitude": "60.17", "longitude": "24.94", "name": "Helsinki", "unit": "C", "id": 7}"#
            let add = try await client.send(.post, "/add_location", json: #"{"token": "\#(Self.token)", "location": \#(location), "extra": true}"#)
            #expect(add.status == .created)
            #expect(try await harness.count("subscription") == 1)
        }
    }

    @Test("quiet_hours of the wrong type says what it must be")
    func quietHoursType() async throws {
        let harness = try RouteTestHarness()
        try await harness.test { client in
            let response = try await client.send(.put, Self.device, json: #"{"quiet_hours": "22-07"}"#)
            #expect(response.status == .badRequest)
            #expect(response.errorCode == "invalid_field")
            #expect(Self.message(response).contains("must be an object with start and end, HH:MM"), "\(Self.message(response))")
            let array = try await client.send(.put, Self.device, json: #"{"quiet_hours": ["22:00", "07:00"]}"#)
            #expect(Self.message(array).contains("must be an object with start and end, HH:MM"))
        }
    }

    @Test("text that is not JSON is still malformed_json, and deep nesting is a 400, not a crash")
    func malformed() async throws {
        let harness = try RouteTestHarness()
        try await harness.test { client in
            #expect(try await client.send(.put, Self.device, json: #"{"locale": "fi-FI", "locale"}"#).errorCode == "malformed_json")
            let deep = String(repeating: "[", count: 20_000) + String(repeating: "]", count: 20_000)
            let response = try await client.send(.put, Self.device, json: #"{"locale": \#(deep)}"#)
            #expect(response.status == .badRequest)
        }
    }

    @Test("a high surrogate escape before another escape is U+FFFD and the other read on its own (it crashed the server); a pair is one character")
    func loneSurrogates() async throws {
        let fields = JSONFields.object(["a": .any])
        #expect(fields.problem(in: Array(#"{"\ud800\u0041": 1}"#.utf8))?.keys == ["\u{FFFD}A"])
        #expect(fields.problem(in: Array(#"{"\uDBFF\uDBFF": 1}"#.utf8))?.keys == ["\u{FFFD}\u{FFFD}"])
        #expect(fields.problem(in: Array(#"{"\ud800\u0000x": 1}"#.utf8))?.keys == ["\u{FFFD}\u{0}x"])
        #expect(fields.problem(in: Array(#"{"\ud83d\ude00": 1}"#.utf8))?.keys == ["😀"])
        #expect(fields.problem(in: Array(#"{"\u0061": 1}"#.utf8)) == nil)
        let harness = try RouteTestHarness()
        try await harness.test { client in
            #expect(try await client.send(.put, Self.device).status == .created)
            let locale = try await client.send(.put, Self.device, json: #"{"locale": "\ud800\u0041"}"#)
            #expect(locale.status == .badRequest, "\(String(buffer: locale.body))")
            let key = try await client.send(.post, "/v1/devices", json: #"{"\uDBFF\uDBFF": 1}"#)
            #expect(key.status == .badRequest && key.errorCode == "unknown_field", "\(String(buffer: key.body))")
            #expect(try await client.send(.get, Self.device).status == .ok, "the server still answers")
        }
    }
}
