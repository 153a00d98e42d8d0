import FrostboxCore
import FrostboxDoubles
import Testing

/// Browsers as devices (issue #46), the same on every store: a push subscription registers a
/// device under a server-given id, the same endpoint again is the same device, and a
/// browser's id is never registered on the way as other tokens are.
@Suite("Web device contract", .backgroundWorkScoped)
struct WebDeviceContract {
    let directory: TemporaryDirectory
    static let p256dh = "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4"
    static let auth = "BTBZMqHH6r4Tts7J_aSIgg"

    init() throws {
        directory = try TemporaryDirectory(prefix: "frostbox-contract-web")
    }

    static func subscription(_ path: String, auth: String = auth) throws -> WebPushSubscription {
        try WebPushSubscription(endpoint: "https://fcm.googleapis.com/fcm/send/" + path, p256dh: p256dh, auth: auth)
    }

    static func registration(_ subscription: WebPushSubscription, app: String? = nil) -> DeviceRegistration {
        var registration = DeviceRegistration(token: DeviceToken.webID(random: Array(repeating: 0, count: 16)), platform: .web, app: app)
        registration.webPush = subscription
        return registration
    }

    static func id(_ byte: UInt8) -> DeviceToken { DeviceToken.webID(random: Array(repeating: byte, count: 16)) }

    @Test(
        "a subscription registers a browser under the id given; the same endpoint again is the same device with its new keys",
        arguments: SubscriptionStoreImplementation.available)
    func idempotentByEndpoint(_ implementation: SubscriptionStoreImplementation) async throws {
        let store = try await implementation.make(in: directory)
        let first = try Self.subscription("abc")
        let (id, created) = try await store.registerWebPush(Self.registration(first, app: "garden"), newID: Self.id(1), at: 10)
        #expect(id == Self.id(1) && created)
        let device = try #require(try await store.device(id))
        #expect(device.platform == .web && device.app == "garden" && device.webPush == first && device.createdAt == 10)
        #expect(try await store.webDevice(at: first.endpoint) == device, "the endpoint finds its device")
        #expect(try await store.webDevice(at: try Self.subscription("nobody").endpoint) == nil)

        let renewed = try Self.subscription("abc", auth: "AAAAAAAAAAAAAAAAAAAAAA")
        let (again, createdAgain) = try await store.registerWebPush(Self.registration(renewed), newID: Self.id(2), at: 20)
        #expect(again == id && !createdAgain, "the same endpoint is the same device, whatever id was offered")
        let refreshed = try #require(try await store.device(id))
        #expect(refreshed.webPush?.auth == "AAAAAAAAAAAAAAAAAAAAAA" && refreshed.registeredAt == 20 && refreshed.app == "garden")
        #expect(try await store.device(Self.id(2)) == nil)

        let (other, otherCreated) = try await store.registerWebPush(Self.registration(try Self.subscription("xyz")), newID: Self.id(3), at: 30)
        #expect(other == Self.id(3) && otherCreated)
    }

    @Test(
        "an endpoint spelled with an upper-case scheme, host or a written :443 is stored in one spelling, and is the same device as the usual one",
        arguments: SubscriptionStoreImplementation.available)
    func endpointInOneSpelling(_ implementation: SubscriptionStoreImplementation) async throws {
        let store = try await implementation.make(in: directory)
        let shouted = try WebPushSubscription(endpoint: "HTTPS://FCM.GoogleAPIs.com:443/fcm/send/AbC", p256dh: Self.p256dh, auth: Self.auth)
        #expect(shouted.endpoint.url == "https://fcm.googleapis.com/fcm/send/AbC", "the path keeps its case")
        let (id, created) = try await store.registerWebPush(Self.registration(shouted), newID: Self.id(1), at: 10)
        #expect(id == Self.id(1) && created)
        #expect(try await store.device(id)?.webPush?.endpoint.url == "https://fcm.googleapis.com/fcm/send/AbC")
        let (again, createdAgain) = try await store.registerWebPush(Self.registration(try Self.subscription("AbC")), newID: Self.id(2), at: 20)
        #expect(again == id && !createdAgain)
        let (otherPath, otherCreated) = try await store.registerWebPush(Self.registration(try Self.subscription("abc")), newID: Self.id(3), at: 30)
        #expect(otherPath == Self.id(3) && otherCreated, "a path differing in case is another subscription")
    }

    @Test(
        "a browser's id that no registration gave is not registered on the way: subscribe and register refuse it",
        arguments: SubscriptionStoreImplementation.available)
    func unknownWebID(_ implementation: SubscriptionStoreImplementation) async throws {
        let store = try await implementation.make(in: directory)
        let new = NewSubscription(coordinate: try Coordinate(latitude: 60.2, longitude: 24.9), name: try PlaceName("Home"))
        await #expect(throws: UnknownDeviceError(Self.id(9))) { try await store.subscribe(Self.id(9), to: new, at: 1) }
        await #expect(throws: UnknownDeviceError(Self.id(9))) {
            try await store.register(DeviceRegistration(token: Self.id(9), platform: .web, locale: "fi-FI"), at: 1)
        }
        #expect(try await store.device(Self.id(9)) == nil)

        // Registered, its settings change through `register` and it subscribes as any device does.
        let (id, _) = try await store.registerWebPush(Self.registration(try Self.subscription("abc")), newID: Self.id(4), at: 2)
        let refreshed = try await store.register(DeviceRegistration(token: id, platform: .web, locale: "fi-FI"), at: 3)
        #expect(refreshed == false)
        #expect(try await store.device(id)?.locale == "fi-FI")
        #expect(try await store.subscribe(id, to: new, at: 4).created)
        #expect(try await store.deleteDevice(id))
        await #expect(throws: UnknownDeviceError(id)) { try await store.subscribe(id, to: new, at: 5) }
    }

    @Test("the directory gives each browser's subscription, and nothing for other devices or unknown ids", arguments: SubscriptionStoreImplementation.available)
    func directory(_ implementation: SubscriptionStoreImplementation) async throws {
        let store = try await implementation.make(in: directory)
        let directory = try #require(store as? any WebPushDirectory)
        let hex = DeviceToken(trusted: "00112233445566778899aabbccddeeff")
        try await store.register(DeviceRegistration(token: hex, platform: .ios), at: 1)
        let subscription = try Self.subscription("abc")
        let (id, _) = try await store.registerWebPush(Self.registration(subscription), newID: Self.id(5), at: 2)
        let found = try await directory.webPushSubscriptions(of: [hex, id, Self.id(6)])
        #expect(found == [id: subscription])
        #expect(try await directory.webPushSubscriptions(of: []).isEmpty)
    }
}
