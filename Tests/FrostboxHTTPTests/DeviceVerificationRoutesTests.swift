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

/// A device's verification state on the device API, and the admin routes over pending
/// devices (issue #33).
@Suite("Device verification routes")
struct DeviceVerificationRoutesTests {
    static let secret = OperationsHarness.adminSecret
    let pending = DeviceToken(trusted: "a11ce000000000000000000000000001")
    let verified = DeviceToken(trusted: "b0b00000000000000000000000000002")

    /// The device routes over an in-memory subscription store, and the admin routes over an
    /// in-memory notifier store holding a pending device first registered 2 h ago and a
    /// verified one; `verifies` false: verification off.
    func api(verifies: Bool = true) -> (FrostboxAPI, InMemoryNotifierStore) {
        let now = Int64(Date().timeIntervalSince1970)
        let notifierStore = InMemoryNotifierStore(verifiedDevicesOnly: verifies)
        notifierStore.register(pending, at: now - 7_200, verified: false)
        notifierStore.subscribe(pending, box: GeoBox(latitudeIndex: 1_200, longitudeIndex: 500), name: "Home")
        notifierStore.register(verified, at: now - 9_000)
        let subscriptions = InMemorySubscriptionStore(maximumSubscriptionsPerDevice: 5)
        let operations = AdminRoutes.Operations(
            stats: { AdminStats(devices: 2, subscriptions: 1, boxes: 1, places: 0) }, pendingDevices: verifies ? notifierStore : nil)
        let api = FrostboxAPI(groups: [
            DeviceRoutes(store: subscriptions, clock: { now }, verifiesDevices: verifies).add(to:),
            AdminRoutes(token: AdminToken(Self.secret)!, operations: operations).add(to:),
        ])
        return (api, notifierStore)
    }

    static func run(_ api: FrostboxAPI, _ body: @Sendable (any TestClientProtocol) async throws -> Void) async throws {
        try await Application(router: api.makeRouter(), logger: Logger(label: "test")).test(.router, body)
    }

    @Test("a new device reads as pending while devices are verified, and as verified when they are not")
    func deviceState() async throws {
        for verifies in [true, false] {
            try await Self.run(api(verifies: verifies).0) { client in
                let created = try await client.send(.put, "/v1/devices/\(pending.value)", json: "{}", headers: [:])
                #expect(created.status == .created)
                #expect(created.json["verification"] as? String == (verifies ? "pending" : "verified"))
                let read = try await client.send(.get, "/v1/devices/\(pending.value)", headers: [:])
                #expect(read.json["verification"] as? String == (verifies ? "pending" : "verified"))
            }
        }
    }

    @Test("GET /admin/devices/pending lists pending devices by age with shortened tokens and the totals")
    func list() async throws {
        try await Self.run(api().0) { client in
            let all = try await client.send(.get, "/admin/devices/pending", headers: bearer(Self.secret))
            #expect(all.status == .ok)
            #expect(all.json["pending"] as? Int == 1)
            #expect(all.json["boxes_awaiting_verification"] as? Int == 1)
            let devices = all.json["devices"] as? [[String: Any]] ?? []
            #expect(devices.count == 1)
            #expect(devices.first?["token"] as? String == pending.redacted)
            #expect(!String(buffer: all.body).contains(pending.value))

            let younger = try await client.send(.get, "/admin/devices/pending?older_than=10000", headers: bearer(Self.secret))
            #expect((younger.json["devices"] as? [Any])?.isEmpty == true)

            for bad in ["older_than=-1", "older_than=abc", "older_than=", "limit=0", "limit=1001"] {
                let response = try await client.send(.get, "/admin/devices/pending?\(bad)", headers: bearer(Self.secret))
                #expect(response.status == .badRequest, "\(bad)")
                #expect(response.errorCode == "invalid_field", "\(bad)")
            }
        }
    }

    @Test("DELETE /admin/devices/pending purges pending devices older than asked, Bearer only, verified ones untouched")
    func purge() async throws {
        let (api, store) = api()
        try await Self.run(api) { client in
            let missing = try await client.send(.delete, "/admin/devices/pending", headers: bearer(Self.secret))
            #expect(missing.status == .badRequest)

            var basic = HTTPFields()
            basic[.authorization] = "Basic \(Data(":\(Self.secret)".utf8).base64EncodedString())"
            let viaBasic = try await client.send(.delete, "/admin/devices/pending?older_than=0", headers: basic)
            #expect(viaBasic.status == .unauthorized)

            let younger = try await client.send(.delete, "/admin/devices/pending?older_than=10000", headers: bearer(Self.secret))
            #expect(younger.json["deleted"] as? Int == 0)
            #expect(store.hasDevice(pending))

            let older = try await client.send(.delete, "/admin/devices/pending?older_than=3600", headers: bearer(Self.secret))
            #expect(older.status == .ok)
            #expect(older.json["deleted"] as? Int == 1)
        }
        #expect(!store.hasDevice(pending))
        #expect(store.hasDevice(verified))
    }

    @Test("with verification off the pending-device routes answer 409 verification_off")
    func verificationOff() async throws {
        try await Self.run(api(verifies: false).0) { client in
            for method in [HTTPRequest.Method.get, .delete] {
                let response = try await client.send(method, "/admin/devices/pending?older_than=0", headers: bearer(Self.secret))
                #expect(response.status == .conflict)
                #expect(response.errorCode == "verification_off")
            }
        }
    }
}
