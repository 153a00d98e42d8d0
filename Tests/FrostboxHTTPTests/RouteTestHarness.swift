import Foundation
import FrostboxApp
import FrostboxCore
import FrostboxDoubles
import FrostboxHTTP
import FrostboxSQLite
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore

/// A router-level test harness driven without a socket: the public API either over the
/// in-memory doubles (`inMemory()`, no SQLite at all; the contract suites prove the doubles
/// keep the SQLite stores' rules) or over the whole app on a real SQLite file in a temporary
/// directory (`init()`, for durability and the parts only the app wires).
struct RouteTestHarness {
    /// What the routes run over.
    enum Backing {
        case sqlite(FrostboxApplication.Components, TemporaryDirectory)
        case inMemory(InMemorySubscriptionStore, InMemoryPlaceIndex)
    }

    let backing: Backing
    let api: FrostboxAPI

    /// The whole app over SQLite (subscription limit 5).
    init() throws {
        let temporary = try TemporaryDirectory(prefix: "frostbox-routes")
        var config = FrostboxSettings()
        config.databasePath = temporary.databasePath
        config.maximumSubscriptionsPerDevice = 5
        // A whole test run keeps both cores and the disk busy (place imports, PostgreSQL, fault
        // suites), and a durable write then waited out the 15 s default: the write was stored but
        // answered 503. These routes are not about the deadline (RequestDeadline's own tests are).
        config.requestTimeout = .seconds(120)
        let components = try FrostboxApplication.Components(config: config, logger: Logger(label: "test"))
        backing = .sqlite(components, temporary)
        api = FrostboxApplication.makeAPI(components)
    }

    private init(
        store: InMemorySubscriptionStore, places: InMemoryPlaceIndex, now: @escaping @Sendable () -> Int64, newPlaces: NewPlaceLimit?
    ) {
        backing = .inMemory(store, places)
        api = FrostboxAPI(
            groups: FrostboxApplication.publicRoutes(subscriptions: store, places: places, clock: now, ready: { true }, newPlaces: newPlaces))
    }

    /// The public routes over in-memory doubles (subscription limit 5, as `init()`).
    static func inMemory(
        places: [Place] = [], now: @escaping @Sendable () -> Int64 = { 1_700_000_000 }, newPlaces: NewPlaceLimit? = nil
    ) -> RouteTestHarness {
        RouteTestHarness(
            store: InMemorySubscriptionStore(maximumSubscriptionsPerDevice: 5), places: InMemoryPlaceIndex(places), now: now,
            newPlaces: newPlaces)
    }

    /// Which harness a test parameterized over both wants.
    enum Kind: String, CaseIterable, CustomStringConvertible, Sendable {
        case sqlite, inMemory
        var description: String { rawValue }
    }

    /// A harness of `kind`.
    static func make(_ kind: Kind) throws -> RouteTestHarness {
        switch kind {
        case .sqlite: try RouteTestHarness()
        case .inMemory: inMemory()
        }
    }

    /// The app's parts, for tests over SQLite.
    var components: FrostboxApplication.Components {
        guard case .sqlite(let components, _) = backing else { preconditionFailure("an in-memory harness has no app components") }
        return components
    }

    /// The temporary directory of a harness over SQLite.
    var directory: URL {
        guard case .sqlite(_, let temporary) = backing else { preconditionFailure("an in-memory harness has no directory") }
        return temporary.url
    }

    /// Runs `body` against the router.
    func test(_ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        let app = Application(router: api.makeRouter(), logger: Logger(label: "test"))
        try await app.test(.router, body)
    }

    /// How many devices or subscriptions are stored (`table`: `device` or `subscription`), to
    /// check that refused requests changed nothing.
    func count(_ table: String) async throws -> Int {
        switch backing {
        case .sqlite(let components, _):
            return try await components.database.sqlite!.pool.read { db in
                try Int.fetchOne(db, sql: "SELECT count(*) FROM \(table)") ?? -1
            }
        case .inMemory(let store, _):
            switch table {
            case "device": return store.deviceCount
            case "subscription": return store.subscriptionCount
            default: preconditionFailure("an in-memory harness counts devices and subscriptions only, not \(table)")
            }
        }
    }
}

extension TestClientProtocol {
    @discardableResult
    func send(_ method: HTTPRequest.Method, _ uri: String, json: String? = nil) async throws -> TestResponse {
        var headers = HTTPFields()
        if json != nil { headers[.contentType] = "application/json" }
        return try await execute(uri: uri, method: method, headers: headers, body: json.map { ByteBuffer(string: $0) })
    }
}

extension TestResponse {
    /// The decoded JSON body as a dictionary.
    var json: [String: Any] {
        (try? JSONSerialization.jsonObject(with: Data(body.readableBytesView))) as? [String: Any] ?? [:]
    }

    /// The `error.code` of a JSON error body.
    var errorCode: String? { (json["error"] as? [String: Any])?["code"] as? String }
}
