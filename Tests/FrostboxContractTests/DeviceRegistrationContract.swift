import FrostboxCore
import FrostboxDoubles
import Testing

/// What a registration may change about a stored device (issue #43/#44): never its
/// platform, and a change of app or environment makes a verified device pending again.
@Suite("Device registration contract", .backgroundWorkScoped)
struct DeviceRegistrationContract {
    let directory: TemporaryDirectory
    let hex = DeviceToken(trusted: "00112233445566778899aabbccddeeff")

    init() throws {
        directory = try TemporaryDirectory(prefix: "frostbox-contract-registration")
    }

    @Test("a token's platform is fixed: registering it as another platform throws and changes nothing", arguments: SubscriptionStoreImplementation.available)
    func platformFixed(_ implementation: SubscriptionStoreImplementation) async throws {
        let store = try await implementation.make(in: directory)
        try await store.register(DeviceRegistration(token: hex, platform: .ios, app: "fi.example.frost"), at: 1)
        await #expect(throws: PlatformMismatchError(stored: .ios, requested: .android)) {
            try await store.register(DeviceRegistration(token: hex, platform: .android, app: "fi.example.other"), at: 2)
        }
        let device = try #require(try await store.device(hex))
        #expect(device.platform == .ios && device.app == "fi.example.frost" && device.registeredAt == 1)
        // The same platform again is an ordinary refresh.
        #expect(try await store.register(DeviceRegistration(token: hex, platform: .ios), at: 3) == false)
    }

    @Test(
        "a verified device registered with another app or environment is pending again; the same facts keep it verified",
        arguments: NotifierStoreImplementation.available.filter { $0 != .inMemory })
    func changeOfAppUnverifies(_ implementation: NotifierStoreImplementation) async throws {
        let subject = try await VerificationSubject.make(implementation, in: directory)
        let subscriptions = try #require(subject.subscriptions)
        let registration = DeviceRegistration(token: hex, platform: .ios, app: "fi.example.frost", environment: .production)
        try await subscriptions.register(registration, at: 1)
        try await subject.store.markVerified([hex], at: 2)
        try await subscriptions.register(DeviceRegistration(token: hex, platform: .ios), at: 3)
        #expect(try await subject.device(hex)?.verifiedAt == 2, "no facts given: nothing changed")
        try await subscriptions.register(registration, at: 4)
        #expect(try await subject.device(hex)?.verifiedAt == 2, "the same facts: still verified")
        try await subscriptions.register(DeviceRegistration(token: hex, platform: .ios, app: "fi.example.other"), at: 5)
        #expect(try await subject.device(hex)?.verifiedAt == nil, "another app: pending")
        try await subject.store.markVerified([hex], at: 6)
        try await subscriptions.register(DeviceRegistration(token: hex, platform: .ios, environment: .sandbox), at: 7)
        #expect(try await subject.device(hex)?.verifiedAt == nil, "another environment: pending")
    }
}
