import Dispatch
import Foundation
import FrostboxApp
import FrostboxCore
import FrostboxDoubles
import FrostboxHTTP
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import Testing

/// Database trouble as the client sees it: a 503 `storage_unavailable` with `Retry-After`, not
/// an opaque 500, and no log line per request; and a deadline that does not wait for a
/// handler stuck in work that ignores cancellation.
@Suite("Storage unavailable")
struct StorageUnavailableTests {
    static let token = "0123456789abcdef0123456789abcdef"

    @Test("writes refused by a read-only database answer 503 storage_unavailable with Retry-After; reads still work; nothing is logged per request")
    func readOnlyWrites() async throws {
        let logs = RecordingLogHandler.Store()
        let store = ReadOnlyStore()
        try await store.base.register(DeviceRegistration(token: DeviceToken(trusted: Self.token)), at: 1)
        let api = FrostboxAPI(
            groups: FrostboxApplication.publicRoutes(
                subscriptions: store, places: InMemoryPlaceIndex([]), clock: { 1_700_000_000 }, ready: { true }))
        let app = Application(router: api.makeRouter(), logger: logs.logger())
        try await app.test(.router) { client in
            let writes = [
                try await client.send(.put, "/v1/devices/\(Self.token)"),
                try await client.send(.post, "/register", json: #"{"token": "\#(Self.token)"}"#),
                try await client.send(.post, "/v1/devices/\(Self.token)/subscriptions", json: #"{"latitude": 60.1, "longitude": 24.9, "name": "Home"}"#),
                try await client.send(.delete, "/v1/devices/\(Self.token)"),
            ]
            for write in writes {
                #expect(write.status == .serviceUnavailable)
                #expect(write.errorCode == "storage_unavailable")
                #expect(write.headers[.retryAfter] == "5")
            }
            #expect(try await client.send(.get, "/v1/devices/\(Self.token)").status == .ok)
        }
        #expect(!logs.all.contains { $0.level >= .warning }, "\(logs.all)")
    }

    @Test("no free connection in time is a 503 storage_unavailable to retry after a second")
    func noConnection() {
        let error = APIError(StorageUnavailableError(.noConnection, message: "no database connection came free within 1 s"))
        #expect(error.status == .serviceUnavailable)
        #expect(error.code == "storage_unavailable")
        #expect(error.headers[.retryAfter] == "1")
    }

    @Test("a handler that ignores cancellation is still answered at the deadline, not when it returns")
    func deadlineDoesNotWaitForHandler() async throws {
        let api = FrostboxAPI(
            groups: [
                { routes in
                    routes.on(.get, "/stuck") { _, _ -> HTTPResponse.Status in
                        // Cancellation-blind, as a statement in flight on a dying connection.
                        await withCheckedContinuation { continuation in
                            DispatchQueue.global().asyncAfter(deadline: .now() + 120) { continuation.resume() }
                        }
                        return .ok
                    }
                }
            ], requestTimeout: .milliseconds(100))
        let app = Application(router: api.makeRouter(), logger: Logger(label: "test"))
        try await app.test(.router) { client in
            let started = ContinuousClock.now
            let stuck = try await client.send(.get, "/stuck")
            #expect(stuck.status == .serviceUnavailable)
            #expect(stuck.errorCode == "request_timeout")
            #expect(ContinuousClock.now - started < .seconds(60), "answered at the deadline, not after the handler's 120 s")
        }
    }
}

/// A store whose database refuses writes (as PostgreSQL in read-only mode): reads go to an
/// in-memory store, every write throws `StorageUnavailableError`.
struct ReadOnlyStore: SubscriptionStore {
    let base = InMemorySubscriptionStore()
    static let refused = StorageUnavailableError(.readOnly, code: "25006", message: "cannot execute INSERT in a read-only transaction")

    func register(_ registration: DeviceRegistration, at now: Int64) async throws -> Bool { throw Self.refused }
    func registerWebPush(_ registration: DeviceRegistration, newID: DeviceToken, at now: Int64) async throws -> (token: DeviceToken, created: Bool) {
        throw Self.refused
    }
    func device(_ token: DeviceToken) async throws -> Device? { try await base.device(token) }
    func webDevice(at endpoint: WebPushEndpoint) async throws -> Device? { try await base.webDevice(at: endpoint) }
    func subscribe(_ token: DeviceToken, to new: NewSubscription, at now: Int64) async throws -> SubscriptionChange { throw Self.refused }
    func unsubscribe(_ token: DeviceToken, at coordinate: Coordinate, named name: PlaceName) async throws -> Int { throw Self.refused }
    func unsubscribe(_ token: DeviceToken, id: Int64) async throws -> Bool { throw Self.refused }
    func subscriptions(of token: DeviceToken) async throws -> [Subscription] { try await base.subscriptions(of: token) }
    func hasSubscriptions(in box: GeoBox) async throws -> Bool { try await base.hasSubscriptions(in: box) }
    func deleteDevice(_ token: DeviceToken) async throws -> Bool { throw Self.refused }
}
