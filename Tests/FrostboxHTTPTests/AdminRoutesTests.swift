import Foundation
import FrostboxApp
import FrostboxCore
import FrostboxDoubles
import FrostboxHTTP
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Synchronization
import Testing

@Suite("Admin API")
struct AdminRoutesTests {
    static let secret = OperationsHarness.adminSecret
    static let token = "0123456789abcdef0123456789abcdef"

    /// An API with only the admin routes, over doubles.
    static func adminAPI(
        notify: @escaping @Sendable () async throws -> AdminRoutes.NotifyTrigger = { .started(runID: 7) },
        sender: (any PushSender)? = nil
    ) -> FrostboxAPI {
        let operations = AdminRoutes.Operations(
            stats: {
                AdminStats(
                    devices: 3, subscriptions: 5, boxes: 2, places: 11, outboxPending: 1, forecastsCached: 4,
                    recentRuns: [
                        AdminRunSummary(
                            id: 7, status: "completed", startedAt: 1_795_000_000, finishedAt: 1_795_000_042, boxes: 2, planned: 4, delivered: 3, failed: 1)
                    ])
            },
            notify: notify, pushSender: sender,
            reloadPlaces: {
                PlacesReload(
                    result: "refused", generation: "places-a.sqlite", switchedAt: 1_795_000_000, refused: "places-b.sqlite", reason: "quick_check failed")
            })
        return FrostboxAPI(groups: [AdminRoutes(token: AdminToken(secret)!, operations: operations).add(to:)])
    }

    static func run(_ api: FrostboxAPI, _ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        try await Application(router: api.makeRouter(), logger: Logger(label: "test")).test(.router, body)
    }

    @Test("without, with a wrong, or with a non-bearer token every admin route answers 401 JSON")
    func unauthorized() async throws {
        let sender = RecordingPushSender()
        let notified = Mutex(0)
        let api = Self.adminAPI(
            notify: {
                notified.withLock { $0 += 1 }
                return .started(runID: nil)
            }, sender: sender)
        try await Self.run(api) { client in
            var wrongScheme = HTTPFields()
            wrongScheme[.authorization] = "Basic \(Self.secret)"
            let credentials: [HTTPFields] = [
                [:], bearer("nope"), bearer(Self.secret + "x"), bearer(String(Self.secret.dropLast())), bearer(""), wrongScheme,
            ]
            for headers in credentials {
                for (method, path) in [
                    (HTTPRequest.Method.get, "/admin/stats"), (.post, "/admin/notify"), (.post, "/admin/push-test"), (.post, "/admin/places/reload"),
                ] {
                    let response = try await client.send(method, path, json: #"{"token": "\#(Self.token)"}"#, headers: headers)
                    #expect(response.status == .unauthorized, "\(method) \(path) \(headers)")
                    #expect(response.errorCode == "unauthorized")
                    #expect(response.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
                }
            }
        }
        #expect(sender.sent.isEmpty)
        #expect(notified.withLock { $0 } == 0)
    }

    @Test("POST /admin/places/reload answers what the check found, with the generation in use")
    func placesReload() async throws {
        try await Self.run(Self.adminAPI()) { client in
            let response = try await client.send(.post, "/admin/places/reload", headers: bearer(Self.secret))
            #expect(response.status == .ok)
            #expect(response.json["result"] as? String == "refused")
            #expect(response.json["generation"] as? String == "places-a.sqlite")
            #expect(response.json["switched_at"] as? String == "2026-11-18T11:06:40Z")
            #expect(response.json["refused"] as? String == "places-b.sqlite")
            #expect(response.json["reason"] as? String == "quick_check failed")
        }
    }

    @Test("GET /admin/stats answers counts and recent runs")
    func stats() async throws {
        try await Self.run(Self.adminAPI()) { client in
            let response = try await client.send(.get, "/admin/stats", headers: bearer(Self.secret))
            #expect(response.status == .ok)
            #expect(response.json["devices"] as? Int == 3)
            #expect(response.json["places"] as? Int == 11)
            #expect(response.json["outbox_pending"] as? Int == 1)
            #expect(response.json["forecasts_cached"] as? Int == 4)
            let runs = try #require(response.json["recent_runs"] as? [[String: Any]])
            #expect(runs.first?["started_at"] as? String == "2026-11-18T11:06:40Z")
            #expect(runs.first?["failed"] as? Int == 1)
            // The scheme name is case-insensitive.
            var lower = HTTPFields()
            lower[.authorization] = "bearer \(Self.secret)"
            #expect(try await client.send(.get, "/admin/stats", headers: lower).status == .ok)
        }
    }

    @Test("POST /admin/notify starts a run (202), 409 while one runs, 503 without a notifier")
    func notify() async throws {
        for (trigger, status, code) in [
            (AdminRoutes.NotifyTrigger.started(runID: 9), HTTPResponse.Status.accepted, nil as String?),
            (.alreadyRunning, .conflict, "run_in_progress"),
            (.unavailable, .serviceUnavailable, "notifier_unavailable"),
        ] {
            try await Self.run(Self.adminAPI(notify: { trigger })) { client in
                let response = try await client.send(.post, "/admin/notify", headers: bearer(Self.secret))
                #expect(response.status == status)
                #expect(response.errorCode == code)
                if status == .accepted { #expect(response.json["run_id"] as? Int == 9) }
            }
        }
    }

    @Test(
        "routes that change state take the token only as Bearer: the Basic login a browser keeps, sent by a forged cross-site request, is refused and nothing happens"
    )
    func forgedAdminPosts() async throws {
        let sender = RecordingPushSender()
        final class Count: Sendable {
            let value = Mutex(0)
        }
        let started = Count()
        let api = Self.adminAPI(
            notify: {
                started.value.withLock { $0 += 1 }
                return .started(runID: 1)
            }, sender: sender)
        try await Self.run(api) { client in
            var forged = StatusRoutesTests.basic("admin", Self.secret)
            forged[.origin] = "https://evil.example"
            forged[.contentType] = "text/plain"
            let notify = try await client.send(.post, "/admin/notify", headers: forged)
            #expect(notify.status == .unauthorized)
            #expect(notify.headers[.wwwAuthenticate]?.hasPrefix("Bearer") == true)
            let push = try await client.send(.post, "/admin/push-test", json: #"{"token": "\#(Self.token)", "title": "Pwned"}"#, headers: forged)
            #expect(push.status == .unauthorized)
            #expect(started.value.withLock { $0 } == 0)
            #expect(sender.sent.isEmpty)
            // Reads keep taking the browser's Basic login (the status page's own requests).
            #expect(try await client.send(.get, "/admin/stats", headers: StatusRoutesTests.basic("admin", Self.secret)).status == .ok)
            #expect(try await client.send(.post, "/admin/notify", headers: bearer(Self.secret)).status == .accepted)
        }
    }

    @Test("POST /admin/push-test sends one alert to the token and reports the outcome")
    func pushTest() async throws {
        let sender = RecordingPushSender()
        let dead = try DeviceToken("ffeeddccbbaa99887766554433221100")
        sender.script(dead, [.invalidToken(reason: "Unregistered", unregisteredAtMilliseconds: 1)])
        try await Self.run(Self.adminAPI(sender: sender)) { client in
            let ok = try await client.send(
                .post, "/admin/push-test", json: #"{"token": "\#(Self.token)", "topic": "fi.example.frost", "environment": "sandbox", "title": "Hi"}"#,
                headers: bearer(Self.secret))
            #expect(ok.status == .ok)
            #expect(ok.json["outcome"] as? String == "delivered")
            #expect(ok.json["token"] as? String == "012345…cdef")
            // The gateway's id under its platform-neutral name, and under its first name for one release.
            let id = try #require(ok.json["message_id"] as? String)
            #expect(!id.isEmpty && ok.json["apns_id"] as? String == id)
            let gone = try await client.send(.post, "/admin/push-test", json: #"{"token": "\#(dead.value)"}"#, headers: bearer(Self.secret))
            #expect(gone.json["outcome"] as? String == "invalid-token")
            #expect(gone.json["reason"] as? String == "Unregistered")
            for bad in [
                #"{"token": "xyz"}"#, #"{}"#, #"{"token": "\#(Self.token)", "environment": "staging"}"#, "nope",
                #"{"token": "\#(Self.token)", "title": "\#(String(repeating: "a", count: 201))"}"#,
            ] {
                let response = try await client.send(.post, "/admin/push-test", json: bad, headers: bearer(Self.secret))
                #expect(response.status == .badRequest, "\(bad)")
            }
        }
        let sent = sender.sent
        #expect(sent.count == 2)
        #expect(sent.first?.app == "fi.example.frost")
        #expect(sent.first?.environment == .sandbox)
        #expect(sent.first?.content.title == "Hi")
        #expect(sent.first.map { UUID(uuidString: $0.messageID) != nil } == true)
    }

    @Test("push-test without a configured sender answers 503")
    func pushTestUnavailable() async throws {
        try await Self.run(Self.adminAPI(sender: nil)) { client in
            let response = try await client.send(.post, "/admin/push-test", json: #"{"token": "\#(Self.token)"}"#, headers: bearer(Self.secret))
            #expect(response.status == .serviceUnavailable)
            #expect(response.errorCode == "push_unavailable")
        }
    }

    @Test("the admin API exists only when a token is configured")
    func disabledWithoutToken() async throws {
        let off = try OperationsHarness()
        #expect(!off.api.registry.routes.contains { $0.path.hasPrefix("/admin") })
        try await off.test { client in
            let response = try await client.send(.get, "/admin/stats", headers: bearer(Self.secret))
            #expect(response.status == .notFound)
        }
        let on = try OperationsHarness { $0.adminToken = AdminToken(Self.secret) }
        try await on.test { client in
            try await client.send(.put, "/v1/devices/\(Self.token)")
            try await client.send(.post, "/v1/devices/\(Self.token)/subscriptions", json: #"{"latitude": 60.17, "longitude": 24.94, "name": "Home"}"#)
            let stats = try await client.send(.get, "/admin/stats", headers: bearer(Self.secret))
            #expect(stats.status == .ok)
            #expect(stats.json["devices"] as? Int == 1)
            #expect(stats.json["subscriptions"] as? Int == 1)
            #expect(stats.json["boxes"] as? Int == 1)
            #expect(try await client.send(.get, "/admin/stats").status == .unauthorized)
        }
    }

    @Test("tokens compare equal only when identical, and short tokens are refused")
    func tokenComparison() throws {
        let token = try #require(AdminToken("0123456789abcdef"))
        #expect(token.matches("0123456789abcdef"))
        #expect(!token.matches("0123456789abcdeF"))
        #expect(!token.matches("0123456789abcdef0"))
        #expect(!token.matches("0123456789abcde"))
        #expect(!token.matches(""))
        #expect(AdminToken("short") == nil)
        #expect(!"\(token)".contains("0123"))
    }
}
