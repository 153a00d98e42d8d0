import Foundation
import FrostboxCore
import FrostboxDoubles
import TestPostgres
import Testing

/// Devices have a platform, stored with the device in every store: what registration says,
/// or (a device made by its first subscription) what its token's form says; the notifier
/// reads it back with every subscribed place and every outbox entry.
@Suite("Device platform contract", .backgroundWorkScoped)
struct DevicePlatformContract {
    let directory: TemporaryDirectory
    let fcm = DeviceToken(trusted: "fJ3kX9Qr:APA91bH_q-1Zx")
    let apns = DeviceToken(trusted: "a11ce000000000000000000000000001")
    let home = try! Coordinate(latitude: 60.17, longitude: 24.94)

    init() throws {
        directory = try TemporaryDirectory(prefix: "frostbox-contract-platform")
    }

    @Test("a registered Android device reads back as Android, with its app", arguments: SubscriptionStoreImplementation.available)
    func registered(_ implementation: SubscriptionStoreImplementation) async throws {
        let store = try await implementation.make(in: directory)
        try await store.register(DeviceRegistration(token: fcm, platform: .android, app: "fi.example.frost"), at: 1)
        try await store.register(DeviceRegistration(token: apns, app: "fi.example.frost"), at: 1)
        let android = try #require(try await store.device(fcm))
        #expect(android.platform == .android)
        #expect(android.app == "fi.example.frost")
        #expect(android.token.value == "fJ3kX9Qr:APA91bH_q-1Zx")
        #expect(try await store.device(apns)?.platform == .ios)
    }

    @Test("a device made by its first subscription has the platform its token's form says", arguments: SubscriptionStoreImplementation.available)
    func implicit(_ implementation: SubscriptionStoreImplementation) async throws {
        let store = try await implementation.make(in: directory)
        _ = try await store.subscribe(fcm, to: NewSubscription(coordinate: home, name: try PlaceName("Home")), at: 1)
        _ = try await store.subscribe(apns, to: NewSubscription(coordinate: home, name: try PlaceName("Home")), at: 1)
        #expect(try await store.device(fcm)?.platform == .android)
        #expect(try await store.device(apns)?.platform == .ios)
    }

    @Test("subscribed places and outbox entries carry their device's platform", arguments: NotifierStoreImplementation.available)
    func notifierReads(_ implementation: NotifierStoreImplementation) async throws {
        let subject = try await implementation.make(in: directory)
        try await subject.subscribe(fcm, home, "Home", 100)
        try await subject.subscribe(apns, home, "Home", 100)
        let places = try await subject.store.places(in: [home.box])[home.box] ?? []
        #expect(Dictionary(uniqueKeysWithValues: places.map { ($0.token, $0.platform) }) == [fcm: .android, apns: .ios])

        let entries = [fcm, apns].map { token in
            let alert = PlannedAlert(
                token: token, platform: token == fcm ? .android : .ios, app: "fi.example.frost",
                event: FrostEvent(box: home.box, night: LocalDate(year: 2026, month: 5, day: 12), level: .freeze), kind: .frost,
                places: ["Home"], unit: .celsius, minimumC: -2, coldestAt: nil, windowEnd: 10_000, relativeNight: .tonight)
            return OutboxEntry(event: alert.event, kind: .frost, notification: alert.notification(), createdAt: 1_000)
        }
        _ = try await subject.store.enqueue(entries, runID: nil)
        let pending = try await subject.store.pendingOutbox(after: 0, through: nil, limit: 10)
        #expect(Set(pending.map(\.notification)) == Set(entries.map(\.notification)))
        #expect(pending.first { $0.token == fcm }?.notification.platform == .android)
    }
}
