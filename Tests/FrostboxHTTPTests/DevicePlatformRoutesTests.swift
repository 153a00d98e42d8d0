import Foundation
import FrostboxCore
import HTTPTypes
import HummingbirdTesting
import Testing

/// Devices have a platform: iOS (APNs, hex tokens) or Android (FCM registration tokens).
@Suite("Device platforms on the wire")
struct DevicePlatformRoutesTests {
    static let fcm = "fJ3kX9Qr:APA91bH_q-1Zx"
    static let apns = "0123456789abcdef0123456789abcdef"

    @Test("PUT an Android device with its package name: shown with its platform, token kept exactly", arguments: RouteTestHarness.Kind.allCases)
    func android(_ kind: RouteTestHarness.Kind) async throws {
        let harness = try RouteTestHarness.make(kind)
        try await harness.test { client in
            let put = try await client.send(.put, "/v1/devices/\(Self.fcm)", json: #"{"platform": "android", "app": "fi.example.frost", "locale": "fi-FI"}"#)
            #expect(put.status == .created)
            #expect(put.json["platform"] as? String == "android")
            #expect(put.json["app"] as? String == "fi.example.frost")
            #expect(put.json["token"] as? String == Self.fcm)
            let read = try await client.send(.get, "/v1/devices/\(Self.fcm)")
            #expect(read.status == .ok)
            #expect(read.json["platform"] as? String == "android")
            let subscribed = try await client.send(
                .post, "/v1/devices/\(Self.fcm)/subscriptions", json: #"{"latitude": 60.19, "longitude": 25.01, "name": "Home"}"#)
            #expect(subscribed.status == .created)

            let ios = try await client.send(.put, "/v1/devices/\(Self.apns)", json: #"{"topic": "fi.example.frost"}"#)
            #expect(ios.json["platform"] as? String == "ios")
            #expect(ios.json["app"] as? String == "fi.example.frost")
            #expect(ios.json["topic"] as? String == "fi.example.frost")
            #expect(try await harness.count("device") == 2)
        }
    }

    @Test("the existing app's routes take an optional platform (absent: ios)", arguments: RouteTestHarness.Kind.allCases)
    func legacyRoutes(_ kind: RouteTestHarness.Kind) async throws {
        let harness = try RouteTestHarness.make(kind)
        try await harness.test { client in
            #expect(try await client.send(.post, "/register", json: #"{"token": "\#(Self.fcm)", "platform": "android"}"#).status == .created)
            let location = #"{"latitude": "60.17", "longitude": "24.94", "name": "Helsinki"}"#
            let added = try await client.send(
                .post, "/add_location", json: #"{"token": "\#(Self.fcm)", "platform": "android", "location": \#(location)}"#)
            #expect(added.status == .created)
            #expect(try await client.send(.get, "/v1/devices/\(Self.fcm)").json["platform"] as? String == "android")
            let ios = try await client.send(.post, "/add_location", json: #"{"token": "\#(Self.apns)", "location": \#(location)}"#)
            #expect(ios.status == .created)
            #expect(try await client.send(.get, "/v1/devices/\(Self.apns)").json["platform"] as? String == "ios")
            let removed = try await client.send(
                .post, "/remove_location", json: #"{"token": "\#(Self.fcm)", "platform": "android", "location": \#(location)}"#)
            #expect(removed.status == .ok)
        }
    }

    @Test("a subscription for a token nobody registered makes a device of the platform its token's form says", arguments: RouteTestHarness.Kind.allCases)
    func implicitDevice(_ kind: RouteTestHarness.Kind) async throws {
        let harness = try RouteTestHarness.make(kind)
        try await harness.test { client in
            let body = #"{"latitude": 60.19, "longitude": 25.01, "name": "Home"}"#
            let android = try await client.send(.post, "/v1/devices/\(Self.fcm)/subscriptions", json: body)
            #expect(android.status == .created)
            #expect(try await client.send(.get, "/v1/devices/\(Self.fcm)").json["platform"] as? String == "android")
            let ios = try await client.send(.post, "/v1/devices/\(Self.apns)/subscriptions", json: body)
            #expect(ios.status == .created)
            #expect(try await client.send(.get, "/v1/devices/\(Self.apns)").json["platform"] as? String == "ios")
        }
    }
}
